/**
 * @module auth/signature-worker
 *
 * The piscina worker of `SignaturePool`: recovers a batch of signers in place in a
 * SharedArrayBuffer laid out by the pool, or digests and recovers a batch of typed messages
 * (the task shapes: ./signature-tasks).
 * May import: ./recovery, ./address, ./signature, ./typed-data, ./keccak, ./codes,
 * ./signature-tasks. No state besides the loaded backend.
 * Invariants: writes only the result slot of each item; never throws on bad signatures.
 */
import { hexInto } from './address.ts';
import { loadRecoveryBackend } from './recovery.ts';
import { signatureBytes } from './signature.ts';
import { typedDataDigest } from './typed-data.ts';
import { AuthCode } from './codes.ts';
import { keccakReady } from './keccak.ts';
import { decodeTypedBatch, ITEM_BYTES, RESULT_BYTES, type RecoverBatchTask, type RecoverTypedTask, type TypedResult } from './signature-tasks.ts';

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
