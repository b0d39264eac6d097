/**
 * @module auth/codes
 *
 * The authentication part's result codes: one table (1000–1999) giving, per code, the HTTP
 * status and the exact text a user reads. Rejections are values (`AuthResult`); the gateway
 * turns a refusal into a response from this table (http/errors) and nothing else.
 * May import: nothing.
 * Invariants: codes are stable (they may be journaled); texts quoted from the spec are used as
 * written (`Invalid signature`, `Not delegated for account and subaccount`, …); a `<name>`
 * placeholder in a text is filled from the refusal's `params`.
 */

export const AuthCode = {
  InvalidSignature: 1001,
  MissingToken: 1002,
  InvalidToken: 1003,
  ExpiredToken: 1004,
  NotDelegated: 1005,
  DelegationNotAllowed: 1006,
  InvalidSubaccountIndex: 1007,
  UnauthorizedMargin: 1008,
  NonceUsed: 1009,
  NonceTooLow: 1010,
  InvalidNonce: 1011,
  RequestExpired: 1012,
  InvalidExpiresAt: 1013,
  InvalidField: 1014,
  InvalidScopes: 1015,
  SelfDelegation: 1016,
  DelegateNotFound: 1017,
  ChallengeNotFound: 1018,
  ChallengeExpired: 1019,
  ChallengeMismatch: 1020,
  // 1021 (TooManyChallenges) is retired: challenges are stateless and have no cap.
  InvalidAddress: 1022,
  VerifierBehind: 1023,
} as const;
export type AuthCode = (typeof AuthCode)[keyof typeof AuthCode];

export interface AuthCodeEntry {
  status: number;
  text: string;
}

/** Status and text per code. Texts with `<name>` take that parameter. */
export const AUTH_CODES: Readonly<Record<AuthCode, AuthCodeEntry>> = {
  [AuthCode.InvalidSignature]: { status: 400, text: 'Invalid signature' },
  [AuthCode.MissingToken]: { status: 401, text: 'Please add the JWT token to the header' },
  [AuthCode.InvalidToken]: { status: 401, text: 'Invalid JWT token' },
  [AuthCode.ExpiredToken]: { status: 401, text: 'JWT token expired, please log in again' },
  [AuthCode.NotDelegated]: { status: 403, text: 'Not delegated for account and subaccount' },
  [AuthCode.DelegationNotAllowed]: { status: 403, text: 'Delegation not allowed for request' },
  [AuthCode.InvalidSubaccountIndex]: { status: 400, text: 'Invalid subaccount index' },
  [AuthCode.UnauthorizedMargin]: { status: 403, text: 'Unauthorized to change margin for account <account>' },
  [AuthCode.NonceUsed]: { status: 409, text: 'Nonce already used' },
  [AuthCode.NonceTooLow]: { status: 409, text: 'Nonce too low: must be greater than <min>' },
  [AuthCode.InvalidNonce]: { status: 400, text: 'Invalid nonce: must be an integer from 0 to 9007199254740991' },
  [AuthCode.RequestExpired]: { status: 400, text: 'Request expired' },
  [AuthCode.InvalidExpiresAt]: { status: 400, text: 'Invalid expiresAt: must be an integer from 0 to 9007199254740991' },
  [AuthCode.InvalidField]: { status: 400, text: 'Invalid <field>' },
  [AuthCode.InvalidScopes]: { status: 400, text: 'Invalid delegation scopes: use trade, read or trade,read' },
  [AuthCode.SelfDelegation]: { status: 400, text: 'An account cannot delegate to itself' },
  [AuthCode.DelegateNotFound]: { status: 404, text: 'Delegate not found' },
  [AuthCode.ChallengeNotFound]: { status: 401, text: 'Login challenge not found or already used' },
  [AuthCode.ChallengeExpired]: { status: 401, text: 'Login challenge expired' },
  [AuthCode.ChallengeMismatch]: { status: 401, text: 'Login message does not match the challenge' },
  [AuthCode.InvalidAddress]: { status: 400, text: 'Invalid address' },
  [AuthCode.VerifierBehind]: { status: 503, text: 'Service overloaded: signature verification is behind' },
};

export interface AuthRefusal {
  ok: false;
  code: AuthCode;
  params?: Readonly<Record<string, string>>;
}
export type AuthResult<T> = { ok: true; value: T } | AuthRefusal;

export function accepted<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function refused(code: AuthCode, params?: Readonly<Record<string, string>>): AuthRefusal {
  return params === undefined ? { ok: false, code } : { ok: false, code, params };
}
