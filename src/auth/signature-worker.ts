/**
 * @module auth/signature-worker
 *
 * The piscina worker of `SignaturePool`: recovers a batch of signers in place in a
 * SharedArrayBuffer laid out by the pool (see `BatchLayout` in ./signature-pool.ts).
 * May import: ./recovery, ./address, ./signature, ./typed-data, ./keccak, ./codes. No state besides the loaded backend.
 * Invariants: writes only the result slot of each item; never throws on bad signatures.
 */
import { hexInto, type Address } from './address.ts';
import { loadRecoveryBackend, type BackendName } from './recovery.ts';
import { signatureBytes } from './signature.ts';
import { typedDataDigest, type Eip712Domain, type PrimaryType } from './typed-data.ts';
import { AuthCode } from './codes.ts';
import { keccakReady } from './keccak.ts';

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

/** Bytes per item: digest (32) then signature (65). */
export const ITEM_BYTES = 97;
/** Bytes per result: 1 (recovered) then the address (20). */
export const RESULT_BYTES = 21;

function recoverTyped(task: RecoverTypedTask): TypedResult[] {
  const backend = loadRecoveryBackend(task.backend);
  if (backend === undefined) throw new Error(`recovery backend ${task.backend} does not load in this worker`);
  const { domain, items } = decodeTypedBatch(task.batch);
  return items.map((item) => {
    const digest = typedDataDigest(domain, item.primaryType, item.message as never);
    if (!digest.ok) return { code: digest.code, params: digest.params };
    const signature = signatureBytes(item.signature);
    const signer = signature === undefined ? null : backend.recover(digest.value, signature);
    return signer ?? { code: AuthCode.InvalidSignature };
  });
}

export default async function recoverBatch(task: RecoverBatchTask | RecoverTypedTask): Promise<number | TypedResult[]> {
  // The first task waits for the WebAssembly keccak; every later one finds it ready.
  await keccakReady;
  if ('kind' in task) return recoverTyped(task);
  const backend = loadRecoveryBackend(task.backend);
  if (backend === undefined) throw new Error(`recovery backend ${task.backend} does not load in this worker`);
  const bytes = new Uint8Array(task.buffer);
  const results = task.count * ITEM_BYTES;
  let recovered = 0;
  for (let i = 0; i < task.count; i++) {
    const item = i * ITEM_BYTES;
    const signer = backend.recover(bytes.subarray(item, item + 32), bytes.subarray(item + 32, item + ITEM_BYTES));
    const slot = results + i * RESULT_BYTES;
    if (signer === null) continue;
    bytes[slot] = 1;
    hexInto(signer.slice(2), bytes, slot + 1);
    recovered++;
  }
  return recovered;
}
