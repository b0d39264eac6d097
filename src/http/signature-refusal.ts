/**
 * @module http/signature-refusal
 *
 * The reply for a refused signed write (order, batch, transfer, margin update, delegation
 * change). When the refusal is `Invalid signature` — the spec's text, kept verbatim because
 * clients compare it — the reply also says what a client needs to see its mistake:
 *  - `X-Signed-Message`: the typed message the server hashed, compact JSON (only the type's
 *    fields, in its order; bigints as decimal strings; auth/typed-data `signedMessageJson`);
 *  - `X-Signature-Recovered`: the address the signature recovered to, when it recovered at all.
 *    A wrong key shows that key's address; a message signed differently from the one above (a
 *    field, its spelling, the domain) recovers some address nobody holds.
 * Every other refusal is `codeFailure` unchanged. `explain` runs only for `Invalid signature`,
 * so an accepted write (or any other refusal) builds no JSON.
 * May import: http/errors, http/uws (types), auth/codes, auth/typed-data, auth/address (type).
 */
import type { Address } from '../auth/address.ts';
import { AuthCode } from '../auth/codes.ts';
import { signedMessageJson, type PrimaryType } from '../auth/typed-data.ts';
import { codeFailure } from './errors.ts';
import type { HttpReply } from './uws.ts';

export interface SignedWriteExplanation {
  primaryType: PrimaryType;
  /** The message as the server hashed it (extra properties are left out of the header). */
  message: object;
  /** The recovered signer; absent when the signature recovered no address. */
  recovered?: Address;
}

/** `codeFailure(refusal)`, with the diagnostic headers when it is `Invalid signature`. */
export function signedWriteFailure(refusal: { code: number; params?: Readonly<Record<string, string>> }, explain: () => SignedWriteExplanation): HttpReply {
  const reply = codeFailure(refusal);
  if (refusal.code !== AuthCode.InvalidSignature) return reply;
  const { primaryType, message, recovered } = explain();
  const headers: Record<string, string> = { ...reply.headers, 'x-signed-message': signedMessageJson(primaryType, message as Readonly<Record<string, unknown>>) };
  if (recovered !== undefined) headers['x-signature-recovered'] = recovered;
  return { ...reply, headers };
}
