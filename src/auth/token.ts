/**
 * @module auth/token
 *
 * Access tokens (JWT, jose): issued after a wallet login, presented as
 * `Authorization: Bearer <token>` on /account/* routes; the token names the caller's address.
 * A token authorises reads (and token-authorised cancels); writes always carry an EIP-712
 * signature of their own.
 *
 * May import: jose, ./address, ./codes. An adapter: clock and random source injected.
 *
 * Invariants (RFC 8725):
 *  - HS256 only, pinned on verification: `alg: none`, any other algorithm, or a header naming
 *    an unknown `kid` is refused; the header never chooses the key or the algorithm.
 *  - `typ` is `at+jwt`; `iss`, `aud` are checked; `sub` is the lowercase address; `exp` is short
 *    (15 minutes by default) with a 5-second clock tolerance; `iat` and `jti` are present.
 *  - Key rotation: the first key signs, every listed key verifies (by `kid`), so an old key can
 *    stay listed for one token lifetime after a new one is put first.
 * Limits: no revocation list (a token lives until `exp`; keep `ttlSeconds` short).
 */
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { bytesToHex, toAddress, type Address } from './address.ts';
import { accepted, AuthCode, refused, type AuthResult } from './codes.ts';

export interface TokenKey {
  kid: string;
  /** HMAC secret, at least 32 bytes. */
  secret: Uint8Array;
}

export interface TokenOptions {
  /** Signing key first; all listed keys verify. */
  keys: readonly TokenKey[];
  issuer: string;
  audience: string;
  /** Default 900 (15 minutes). */
  ttlSeconds?: number;
  now?: () => number;
  randomBytes?: (length: number) => Uint8Array;
}

export interface IssuedToken {
  token: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

const ALGORITHM = 'HS256';
const TYPE = 'at+jwt';
const CLOCK_TOLERANCE_SECONDS = 5;
const VERIFIED_CACHE_SIZE = 100_000;

export class AccessTokens {
  private readonly keys: ReadonlyMap<string, Uint8Array>;
  private readonly signingKey: TokenKey;
  private readonly issuer: string;
  private readonly audience: string;
  private readonly ttlSeconds: number;
  private readonly now: () => number;
  private readonly randomBytes: (length: number) => Uint8Array;

  constructor(options: TokenOptions) {
    if (options.keys.length === 0) throw new Error('AccessTokens needs at least one key');
    for (const key of options.keys) if (key.secret.length < 32) throw new Error(`token key ${key.kid} is shorter than 32 bytes`);
    this.keys = new Map(options.keys.map((k) => [k.kid, k.secret]));
    this.signingKey = options.keys[0];
    this.issuer = options.issuer;
    this.audience = options.audience;
    this.ttlSeconds = options.ttlSeconds ?? 900;
    this.now = options.now ?? Date.now;
    this.randomBytes = options.randomBytes ?? ((n) => globalThis.crypto.getRandomValues(new Uint8Array(n)));
  }

  /** A token for `address` (the subject), valid for `ttlSeconds`. */
  async issue(address: Address): Promise<IssuedToken> {
    const issuedAt = Math.floor(this.now() / 1000);
    const expiresAt = issuedAt + this.ttlSeconds;
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: ALGORITHM, typ: TYPE, kid: this.signingKey.kid })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setSubject(address.toLowerCase())
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .setJti(bytesToHex(this.randomBytes(16)))
      .sign(this.signingKey.secret);
    return { token, expiresAt: expiresAt * 1000 };
  }

  /** The caller's address from an `Authorization` header value (`Bearer <token>`). */
  async verifyHeader(authorization: string | undefined | null): Promise<AuthResult<Address>> {
    // A Bearer credential that is not one token (`Bearer <token> extra`) is an invalid token, not a missing one.
    const match = typeof authorization === 'string' ? /^\s*Bearer\s+(\S.*?)\s*$/i.exec(authorization) : null;
    if (match === null) return refused(AuthCode.MissingToken);
    return this.verify(match[1]);
  }

  /**
   * Tokens already verified, until they expire: a bot sends the same token with every request,
   * and a signature check per request would cost the gateway thread more than the rest of a
   * read. Bounded: the map is dropped whole when it grows past `VERIFIED_CACHE_SIZE`.
   */
  private readonly verified = new Map<string, { address: Address; expiresAtMs: number }>();

  /** The caller's address from a bare token. */
  async verify(token: string): Promise<AuthResult<Address>> {
    const known = this.verified.get(token);
    if (known !== undefined) {
      if (this.now() < known.expiresAtMs) return accepted(known.address);
      this.verified.delete(token);
    }
    const checked = await this.verifyOnce(token);
    if (checked.ok) {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear();
      this.verified.set(token, { address: checked.value.address, expiresAtMs: checked.value.expiresAtMs });
      return accepted(checked.value.address);
    }
    return checked;
  }

  private async verifyOnce(token: string): Promise<AuthResult<{ address: Address; expiresAtMs: number }>> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header) => {
          const secret = header.kid === undefined ? undefined : this.keys.get(header.kid);
          if (secret === undefined) throw new errors.JWSSignatureVerificationFailed('unknown kid');
          return secret;
        },
        {
          algorithms: [ALGORITHM],
          typ: TYPE,
          issuer: this.issuer,
          audience: this.audience,
          currentDate: new Date(this.now()),
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp', 'iat', 'sub', 'jti'],
        },
      ));
    } catch (error) {
      return refused(error instanceof errors.JWTExpired ? AuthCode.ExpiredToken : AuthCode.InvalidToken);
    }
    const address = toAddress(payload.sub);
    if (address === undefined || address !== payload.sub) return refused(AuthCode.InvalidToken);
    return accepted({ address, expiresAtMs: (payload.exp as number) * 1000 + CLOCK_TOLERANCE_SECONDS * 1000 });
  }
}
