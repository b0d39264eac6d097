/**
 * Wallet login: POST /auth/challenge {address} → {message, nonce, expiresAt}; the wallet signs
 * `message` with personal_sign (EIP-191); POST /auth/login {message, signature} → {token,
 * expiresAt, address}. A challenge is stateless (auth/challenge.ts), single-use and lives 5 minutes; the token 15 minutes.
 * Refusals are the auth part's texts (401 for a challenge not found, expired, edited or signed
 * by another key; 400 for a bad address). Public routes: limited per source address by the
 * gateway, not by account.
 */
import type { WalletLogin } from '../../auth/login.ts';
import { AuthCode } from '../../auth/codes.ts';
import { codeFailure, documentedError } from '../errors.ts';
import { Field } from '../validation.ts';
import type { Endpoint, Handler } from '../endpoint.ts';
import { BAD_FIELDS, PUBLIC_BUDGET } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';

/** The auth part's refusal of an address, answered by the body validator too (the field's `x-error`). */
const INVALID_ADDRESS = documentedError(AuthCode.InvalidAddress);

const CHALLENGE_REQUEST_SCHEMA = {
  title: 'ChallengeRequest',
  type: 'object',
  properties: { address: { ...Field.address, 'x-error': INVALID_ADDRESS[1] } },
  required: ['address'],
  additionalProperties: false,
} as const;
type ChallengeBody = { address: string };

const LOGIN_REQUEST_SCHEMA = {
  title: 'LoginRequest',
  type: 'object',
  properties: {
    message: { type: 'string', maxLength: 2000, description: 'the challenge message, byte for byte' },
    signature: { type: 'string', maxLength: 200, description: 'personal_sign signature, 0x + 130 hex digits' },
  },
  required: ['message', 'signature'],
  additionalProperties: false,
} as const;
type LoginBody = { message: string; signature: string };

export function challengeRoute(login: Pick<WalletLogin, 'challenge'>): Handler<ChallengeBody, undefined> {
  return (_req, _query, serialize, _found, body) => {
    const challenge = login.challenge(body.address);
    return challenge.ok ? { status: 200, body: serialize(challenge.value) } : codeFailure(challenge);
  };
}

export function loginRoute(login: Pick<WalletLogin, 'login'>): Handler<LoginBody, undefined> {
  return async (_req, _query, serialize, _found, body) => {
    const issued = await login.login(body.message, body.signature);
    return issued.ok ? { status: 200, body: serialize(issued.value) } : codeFailure(issued);
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const CHALLENGE: Endpoint<ChallengeBody> = { method: 'post', path: '/auth/challenge', tag: 'Login', summary: 'Login challenge', description: 'An EIP-4361 (Sign-In with Ethereum) message for the address, valid 5 minutes and usable once. Sign it with `personal_sign` (viem `signMessage`, ethers `signMessage`) and send it to POST /auth/login.', auth: false, body: CHALLENGE_REQUEST_SCHEMA, response: S.CHALLENGE_SCHEMA, errors: [INVALID_ADDRESS, ...BAD_FIELDS, PUBLIC_BUDGET] };

export const LOGIN: Endpoint<LoginBody> = {
  method: 'post', path: '/auth/login', tag: 'Login', summary: 'Exchange a signed challenge for a token', description: 'Returns a JWT access token (15 minutes) for the address that signed the challenge. Send it as `Authorization: Bearer <token>` on every /account/* route. A challenge gives one token: once it has logged in it is spent (a wrong signature spends nothing).', auth: false, body: LOGIN_REQUEST_SCHEMA, response: S.LOGIN_SCHEMA,
  errors: [documentedError(AuthCode.ChallengeNotFound), documentedError(AuthCode.ChallengeExpired), documentedError(AuthCode.ChallengeMismatch), documentedError(AuthCode.InvalidSignature), ...BAD_FIELDS, PUBLIC_BUDGET],
};
