/**
 * @module auth/signature-worker
 *
 * The piscina worker of `SignaturePool`: recovers a batch of signers in place in a
 * SharedArrayBuffer laid out by the pool (see `BatchLayout` in ./signature-pool.ts).
 * May import: ./recovery, ./address (through it). No state besides the loaded backend.
 * Invariants: writes only the result slot of each item; never throws on bad signatures.
 */
import { hexInto } from './address.ts';
import { loadRecoveryBackend, type BackendName } from './recovery.ts';

export interface RecoverBatchTask {
  buffer: SharedArrayBuffer;
  count: number;
  backend: BackendName;
}

/** Bytes per item: digest (32) then signature (65). */
export const ITEM_BYTES = 97;
/** Bytes per result: 1 (recovered) then the address (20). */
export const RESULT_BYTES = 21;

export default function recoverBatch(task: RecoverBatchTask): number {
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
