/**
 * @module auth/login
 *
 * Wallet login end to end, what the gateway's two login routes call: `challenge(address)` →
 * the SIWE message to sign; `login(message, signature)` → an access token for the signer.
 *
 * May import: node:crypto, ./challenge, ./token, ./signed-request, ./recovery, ./codes, ./address (type).
 * Invariants: a token is issued only for the address a redeemed challenge was issued to. The
 * challenges' HMAC key is derived from the token signing key (HMAC-SHA256 of a fixed label), so
 * it is as secret as that key, is the same for every process sharing it, and is never the token
 * key itself.
 */
import { createHmac } from 'node:crypto';
import { LoginChallenges, type Challenge, type ChallengeOptions } from './challenge.ts';
import { accepted, type AuthResult } from './codes.ts';
import { nobleBackend } from './recovery.ts';
import { inlineRecovery, type SignerRecovery } from './signed-request.ts';
import { AccessTokens, type IssuedToken, type TokenOptions } from './token.ts';
import type { Address } from './address.ts';

export interface WalletLoginOptions {
  /** The challenges' settings; their key is derived from the token's signing key. */
  challenge: Omit<ChallengeOptions, 'secret'>;
  token: TokenOptions;
  /** How the login signature is recovered; default noble on the calling thread (logins are rare). */
  recover?: SignerRecovery;
}

export class WalletLogin {
  readonly challenges: LoginChallenges;
  readonly tokens: AccessTokens;
  private readonly recover: SignerRecovery;

  constructor(options: WalletLoginOptions) {
    const tokenKey = options.token.keys[0]?.secret ?? new Uint8Array();
    const challengeKey = createHmac('sha256', tokenKey).update('perp-exchange login challenge v1').digest();
    this.challenges = new LoginChallenges({ ...options.challenge, secret: challengeKey });
    this.tokens = new AccessTokens(options.token);
    this.recover = options.recover ?? inlineRecovery(nobleBackend);
  }

  challenge(address: string): AuthResult<Challenge> {
    return this.challenges.issue(address);
  }

  async login(message: unknown, signature: unknown): Promise<AuthResult<IssuedToken & { address: Address }>> {
    const signer = await this.challenges.redeem(message, signature, this.recover);
    if (!signer.ok) return signer;
    return accepted({ ...(await this.tokens.issue(signer.value)), address: signer.value });
  }
}
