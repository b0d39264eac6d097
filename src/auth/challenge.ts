/**
 * @module auth/challenge
 *
 * Wallet login, step one and two: issue an EIP-4361 (Sign-In with Ethereum) message for an
 * address with a server nonce and an expiry; redeem it once with its EIP-191 `personal_sign`
 * signature for the signing address.
 *
 * Stateless: issuing stores nothing. The nonce is a random salt followed by an HMAC-SHA256, under
 * the server's challenge key, of (address, issued at, expires at, salt, domain, URI, chain id),
 * so redeeming recomputes it instead of looking it up. No number of challenge requests, from
 * however many addresses, can fill anything or lock anybody out.
 *
 * May import: node:crypto, ./keccak, ./address, ./codes, ./signed-request (type). An adapter:
 * the random source and the clock are injected (defaults: crypto.getRandomValues, Date.now).
 *
 * Invariants:
 *  - A message is redeemed only if it is exactly (byte for byte) a message this key issued, not
 *    redeemed before and not expired; its domain, URI, version and chain id are those configured.
 *    The nonce's MAC is compared in constant time.
 *  - The signature must recover (EIP-191) to the message's address. A wrong signature spends
 *    nothing (so it needs no memory): only the address's key can complete its challenge anyway.
 *  - Single use: a redeemed nonce is remembered until its challenge has expired, in two
 *    generations swapped every TTL. Each entry is a completed login (a valid wallet signature),
 *    so the set holds at most the logins of the last two TTLs.
 * Limits: the redeemed set is per process and in memory: a challenge redeemed just before a
 * restart could be redeemed once more, by its signer, before it expires.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { keccak256 } from './keccak.ts';
import { bytesToHex, checksumAddress, toAddress, type Address } from './address.ts';
import { accepted, AuthCode, refused, type AuthResult } from './codes.ts';
import type { SignerRecovery } from './signed-request.ts';

export interface ChallengeOptions {
  /** RFC 3986 authority the user signs in to, e.g. `api.perp.example`. */
  domain: string;
  /** The URI of the signing request, e.g. `https://api.perp.example`. */
  uri: string;
  chainId: number;
  /** Key of the nonces' HMAC, at least 32 bytes (the login derives it from the token key). */
  secret: Uint8Array;
  statement?: string;
  /** Lifetime of a challenge; default 5 minutes. */
  ttlMs?: number;
  now?: () => number;
  randomBytes?: (length: number) => Uint8Array;
}

export interface Challenge {
  message: string;
  nonce: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** Random bytes of the nonce's salt: two challenges of one address in one millisecond differ. */
const SALT_BYTES = 8;
/** MAC bytes in the nonce: 128 bits. */
const MAC_BYTES = 16;
const NONCE = new RegExp(`^[0-9a-f]{${2 * SALT_BYTES}}[0-9a-f]{${2 * MAC_BYTES}}$`);

function defaultRandomBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** The EIP-191 `personal_sign` digest of a text message. */
function personalMessageDigest(message: string): Uint8Array {
  const body = new TextEncoder().encode(message);
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${body.length}`);
  const payload = new Uint8Array(prefix.length + body.length);
  payload.set(prefix);
  payload.set(body, prefix.length);
  return keccak256(payload);
}

export interface SiweFields {
  domain: string;
  address: string;
  statement: string | undefined;
  uri: string;
  version: string;
  chainId: number;
  nonce: string;
  issuedAt: string;
  expirationTime: string | undefined;
}

const SIWE =
  /^(?<domain>[^\s]+) wants you to sign in with your Ethereum account:\n(?<address>0x[0-9a-fA-F]{40})\n\n(?:(?<statement>[^\n]+)\n\n)?URI: (?<uri>[^\s]+)\nVersion: (?<version>1)\nChain ID: (?<chainId>[0-9]+)\nNonce: (?<nonce>[A-Za-z0-9]{8,})\nIssued At: (?<issuedAt>[^\s]+)(?:\nExpiration Time: (?<expirationTime>[^\s]+))?$/;

/** The fields of an EIP-4361 message of the form issued here, or undefined. */
export function parseSiweMessage(message: string): SiweFields | undefined {
  const g = SIWE.exec(message)?.groups;
  if (g === undefined) return undefined;
  return {
    domain: g.domain,
    address: g.address,
    statement: g.statement,
    uri: g.uri,
    version: g.version,
    chainId: Number(g.chainId),
    nonce: g.nonce,
    issuedAt: g.issuedAt,
    expirationTime: g.expirationTime,
  };
}

/** Nonces redeemed in the current and the previous TTL. */
class RedeemedNonces {
  private current = new Set<string>();
  private previous = new Set<string>();
  private swappedAt = -Infinity;

  constructor(private readonly ttlMs: number) {}

  has(nonce: string, now: number): boolean {
    this.age(now);
    return this.current.has(nonce) || this.previous.has(nonce);
  }

  /** Remembers a nonce whose challenge was issued at most one TTL ago. */
  add(nonce: string, now: number): void {
    this.age(now);
    this.current.add(nonce);
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  /**
   * An entry added at `t` (when `swappedAt` > t − TTL) survives until a swap at least one TTL
   * after `t`, by which time its challenge (issued before `t`, living one TTL) has expired.
   */
  private age(now: number): void {
    if (now - this.swappedAt < this.ttlMs) return;
    this.previous = now - this.swappedAt < 2 * this.ttlMs ? this.current : new Set();
    this.current = new Set();
    this.swappedAt = now;
  }
}

export class LoginChallenges {
  private readonly redeemed: RedeemedNonces;
  private readonly domain: string;
  private readonly uri: string;
  private readonly chainId: number;
  private readonly secret: Uint8Array;
  private readonly statement: string;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly randomBytes: (length: number) => Uint8Array;

  constructor(options: ChallengeOptions) {
    if (options.secret.length < 32) throw new Error('the login challenge key is shorter than 32 bytes');
    this.domain = options.domain;
    this.uri = options.uri;
    this.chainId = options.chainId;
    this.secret = options.secret;
    this.statement = options.statement ?? 'Sign in to the exchange API.';
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    this.randomBytes = options.randomBytes ?? defaultRandomBytes;
    this.redeemed = new RedeemedNonces(this.ttlMs);
  }

  /** A new challenge for `address` (any letter case). Stores nothing. */
  issue(addressText: string): AuthResult<Challenge> {
    const address = toAddress(addressText);
    if (address === undefined) return refused(AuthCode.InvalidAddress);
    const issuedAt = this.now();
    const expiresAt = issuedAt + this.ttlMs;
    const nonce = this.nonceFor(address, issuedAt, expiresAt, bytesToHex(this.randomBytes(SALT_BYTES)));
    return accepted({ message: this.messageOf(address, nonce, issuedAt, expiresAt), nonce, expiresAt });
  }

  /** The address that signed an unexpired, unused challenge issued under this key (consumed once signed). */
  async redeem(message: unknown, signature: unknown, recover: SignerRecovery): Promise<AuthResult<Address>> {
    const fields = typeof message === 'string' ? parseSiweMessage(message) : undefined;
    if (fields === undefined || fields.domain !== this.domain || fields.uri !== this.uri || fields.chainId !== this.chainId) {
      return refused(AuthCode.ChallengeMismatch);
    }
    const address = toAddress(fields.address);
    const issuedAt = Date.parse(fields.issuedAt);
    const expiresAt = fields.expirationTime === undefined ? NaN : Date.parse(fields.expirationTime);
    if (address === undefined || !Number.isSafeInteger(issuedAt) || !Number.isSafeInteger(expiresAt) || !NONCE.test(fields.nonce)) {
      return refused(AuthCode.ChallengeNotFound);
    }
    // A nonce of our shape whose MAC fails: a field it binds was edited (or another key issued it).
    const expected = this.nonceFor(address, issuedAt, expiresAt, fields.nonce.slice(0, 2 * SALT_BYTES));
    if (!timingSafeEqual(Buffer.from(expected), Buffer.from(fields.nonce))) return refused(AuthCode.ChallengeMismatch);
    // The nonce is ours; the rest of the message must be what we wrote around it.
    if (message !== this.messageOf(address, expected, issuedAt, expiresAt)) return refused(AuthCode.ChallengeMismatch);
    const now = this.now();
    if (expiresAt <= now) return refused(AuthCode.ChallengeExpired);
    if (this.redeemed.has(expected, now)) return refused(AuthCode.ChallengeNotFound);
    if (typeof signature !== 'string') return refused(AuthCode.InvalidSignature);
    const signer = await recover(personalMessageDigest(message), signature);
    if (signer !== address) return refused(AuthCode.InvalidSignature);
    // Checked again after the await: two logins racing with one challenge get one token.
    const later = this.now();
    if (this.redeemed.has(expected, later)) return refused(AuthCode.ChallengeNotFound);
    this.redeemed.add(expected, later);
    return accepted(address);
  }

  /** Redeemed nonces remembered (completed logins of the last two TTLs at most). */
  get redeemedCount(): number {
    return this.redeemed.size;
  }

  /** Salt (hex) then HMAC-SHA256 (hex, truncated) of everything the message binds. */
  private nonceFor(address: Address, issuedAt: number, expiresAt: number, salt: string): string {
    const mac = createHmac('sha256', this.secret).update(`${address}|${issuedAt}|${expiresAt}|${salt}|${this.domain}|${this.uri}|${this.chainId}`).digest('hex');
    return salt + mac.slice(0, 2 * MAC_BYTES);
  }

  private messageOf(address: Address, nonce: string, issuedAt: number, expiresAt: number): string {
    return [
      `${this.domain} wants you to sign in with your Ethereum account:`,
      checksumAddress(address),
      '',
      this.statement,
      '',
      `URI: ${this.uri}`,
      'Version: 1',
      `Chain ID: ${this.chainId}`,
      `Nonce: ${nonce}`,
      `Issued At: ${new Date(issuedAt).toISOString()}`,
      `Expiration Time: ${new Date(expiresAt).toISOString()}`,
    ].join('\n');
  }
}
