/**
 * Signer recovery of signed writes as the gateway's signature pool does it — the pool worker's
 * own code (auth/signature-worker: the EIP-712 digest, then the signer) — on the calling thread,
 * one typed message per call, answered a microtask later instead of at a thread's turn: the
 * `recoverTyped` of `SignaturePool`, a `TypedRecovery`.
 */
import { loadRecoveryBackend, type BackendName } from '../../src/auth/recovery.ts';
import recoverBatch from '../../src/auth/signature-worker.ts';
import { encodeTypedBatch, typedAuthResult, type TypedResult } from '../../src/auth/signature-tasks.ts';
import type { TypedRecovery } from '../../src/auth/signed-request.ts';

/** The worker's recovery with `backend`; by default the native one where it loads, as the pool chooses. */
export function workerRecovery(backend: BackendName = loadRecoveryBackend('native') !== undefined ? 'native' : 'noble'): TypedRecovery {
  return async (domain, primaryType, message, signature) => {
    const [result] = (await recoverBatch({ kind: 'typed', backend, batch: encodeTypedBatch({ domain, items: [{ primaryType, message, signature }] }) })) as TypedResult[];
    return typedAuthResult(result);
  };
}
