/**
 * @module auth/signature-tasks
 *
 * What crosses between `SignaturePool` (main thread) and its workers: the two task shapes,
 * the layout of a raw batch in its SharedArrayBuffer, and the text form of a typed batch.
 * Both sides import this module, so the main thread never loads the worker itself.
 * May import: ./address (type), ./recovery (type), ./typed-data (types), ./codes.
 */
import type { Address } from './address.ts';
import type { BackendName } from './recovery.ts';
import type { Eip712Domain, PrimaryType } from './typed-data.ts';
import { accepted, refused, type AuthCode, type AuthResult } from './codes.ts';

export interface RecoverBatchTask {
  buffer: SharedArrayBuffer;
  count: number;
  backend: BackendName;
}

/**
 * Typed messages to digest and recover, as one JSON text (`TypedBatch`): a structured clone
 * walks every field of every message on both threads, a string crosses as one copy.
 */
export interface RecoverTypedTask {
  kind: 'typed';
  backend: BackendName;
  batch: string;
}

export interface TypedBatch {
  domain: Eip712Domain;
  items: { primaryType: PrimaryType; message: unknown; signature: string }[];
}

/** JSON has no bigint: a uint given as one crosses as `{ "$bigint": "<decimal>" }`. */
const BIGINT_TAG = '$bigint';

export function encodeTypedBatch(batch: TypedBatch): string {
  try {
    return JSON.stringify(batch);
  } catch {
    // Only a library caller's bigint uint lands here (the gateway's messages hold JSON numbers).
    return JSON.stringify(batch, (_key, value: unknown) => (typeof value === 'bigint' ? { [BIGINT_TAG]: value.toString() } : value));
  }
}

export function decodeTypedBatch(text: string): TypedBatch {
  if (!text.includes(`"${BIGINT_TAG}"`)) return JSON.parse(text) as TypedBatch;
  return JSON.parse(text, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && BIGINT_TAG in value ? BigInt((value as Record<string, string>)[BIGINT_TAG]) : value,
  ) as TypedBatch;
}

/** Per item: the signer, or the AuthCode of the refusal (and its params). */
export type TypedResult = Address | { code: number; params?: Readonly<Record<string, string>> };

/** A worker's result for one typed message as its caller is answered: the signer, or the refusal. */
export function typedAuthResult(r: TypedResult): AuthResult<Address> {
  return typeof r === 'string' ? accepted(r) : refused(r.code as AuthCode, r.params);
}

/** Bytes per item: digest (32) then signature (65). */
export const ITEM_BYTES = 97;
/** Bytes per result: 1 (recovered) then the address (20). */
export const RESULT_BYTES = 21;
