/**
 * @module auth/challenge
 *
 * Wallet login, step one and two: issue an EIP-4361 (Sign-In with Ethereum) message for an
 * address with a server nonce and an expiry; redeem it once with its EIP-191 `personal_sign`
 * signature for the signing address.
 *
 * May import: ./keccak, ./address, ./codes, ./signed-request (type). An adapter: the
 * random source and the clock are injected (defaults: crypto.getRandomValues, Date.now).
 *
 * Invariants:
 *  - A message is redeemed only if it is exactly (byte for byte) a message issued here, not
 *    redeemed before and not expired; its domain, URI, version and chain id are those configured.
 *    Redeeming consumes the challenge whatever the signature, so each challenge gets one attempt.
 *  - The signature must recover (EIP-191) to the message's address.
 *  - At most `maxPending` unexpired challenges are held; expired ones are dropped as new ones are
 *    issued (insertion order is expiry order, the TTL being constant).
 * Limits: in memory, per process: a challenge must be redeemed by the process that issued it.
 */
import { keccak256 } from './keccak.ts';
import { checksumAddress, toAddress, type Address } from './address.ts';
import { accepted, AuthCode, refused, type AuthResult } from './codes.ts';
import type { SignerRecovery } from './signed-request.ts';

export interface ChallengeOptions {
  /** RFC 3986 authority the user signs in to, e.g. `api.perp.example`. */
  domain: string;
  /** The URI of the signing request, e.g. `https://api.perp.example`. */
  uri: string;
  chainId: number;
  statement?: string;
  /** Lifetime of a challenge; default 5 minutes. */
  ttlMs?: number;
  /** Most unexpired challenges held at once; default 100,000. */
  maxPending?: number;
  now?: () => number;
  randomBytes?: (length: number) => Uint8Array;
}

export interface Challenge {
  message: string;
  nonce: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

interface Pending {
  address: Address;
  message: string;
  expiresAt: number;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const NONCE_LENGTH = 17;

function defaultRandomBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** The EIP-191 `personal_sign` digest of a text message. */
export function personalMessageDigest(message: string): Uint8Array {
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

export class LoginChallenges {
  private readonly pending = new Map<string, Pending>();
  private readonly domain: string;
  private readonly uri: string;
  private readonly chainId: number;
  private readonly statement: string;
  private readonly ttlMs: number;
  private readonly maxPending: number;
  private readonly now: () => number;
  private readonly randomBytes: (length: number) => Uint8Array;

  constructor(options: ChallengeOptions) {
    this.domain = options.domain;
    this.uri = options.uri;
    this.chainId = options.chainId;
    this.statement = options.statement ?? 'Sign in to the exchange API.';
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.maxPending = options.maxPending ?? 100_000;
    this.now = options.now ?? Date.now;
    this.randomBytes = options.randomBytes ?? defaultRandomBytes;
  }

  /** A new challenge for `address` (any letter case). */
  issue(addressText: string): AuthResult<Challenge> {
    const address = toAddress(addressText);
    if (address === undefined) return refused(AuthCode.InvalidAddress);
    const now = this.now();
    this.dropExpired(now);
    if (this.pending.size >= this.maxPending) return refused(AuthCode.TooManyChallenges);
    let nonce = this.newNonce();
    while (this.pending.has(nonce)) nonce = this.newNonce();
    const expiresAt = now + this.ttlMs;
    const message = [
      `${this.domain} wants you to sign in with your Ethereum account:`,
      checksumAddress(address),
      '',
      this.statement,
      '',
      `URI: ${this.uri}`,
      'Version: 1',
      `Chain ID: ${this.chainId}`,
      `Nonce: ${nonce}`,
      `Issued At: ${new Date(now).toISOString()}`,
      `Expiration Time: ${new Date(expiresAt).toISOString()}`,
    ].join('\n');
    this.pending.set(nonce, { address, message, expiresAt });
    return accepted({ message, nonce, expiresAt });
  }

  /** The address that signed an issued, unexpired, unused challenge (consumed by this call). */
  async redeem(message: unknown, signature: unknown, recover: SignerRecovery): Promise<AuthResult<Address>> {
    const fields = typeof message === 'string' ? parseSiweMessage(message) : undefined;
    if (fields === undefined || fields.domain !== this.domain || fields.uri !== this.uri || fields.chainId !== this.chainId) {
      return refused(AuthCode.ChallengeMismatch);
    }
    const pending = this.pending.get(fields.nonce);
    if (pending === undefined) return refused(AuthCode.ChallengeNotFound);
    if (pending.message !== message) return refused(AuthCode.ChallengeMismatch);
    this.pending.delete(fields.nonce);
    if (pending.expiresAt <= this.now()) return refused(AuthCode.ChallengeExpired);
    if (typeof signature !== 'string') return refused(AuthCode.InvalidSignature);
    const signer = await recover(personalMessageDigest(pending.message), signature);
    return signer === pending.address ? accepted(pending.address) : refused(AuthCode.InvalidSignature);
  }

  /** Unexpired challenges held. */
  get size(): number {
    return this.pending.size;
  }

  private dropExpired(now: number): void {
    for (const [nonce, pending] of this.pending) {
      if (pending.expiresAt > now) break;
      this.pending.delete(nonce);
    }
  }

  private newNonce(): string {
    let nonce = '';
    while (nonce.length < NONCE_LENGTH) {
      for (const byte of this.randomBytes(NONCE_LENGTH)) {
        // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
        if (byte < 248 && nonce.length < NONCE_LENGTH) nonce += ALPHANUMERIC[byte % 62];
      }
    }
    return nonce;
  }
}
