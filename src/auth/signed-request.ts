/**
 * @module auth/signed-request
 *
 * From a signed request body to its signer, through a `TypedRecovery`: the EIP-712 digest of the
 * message (typed-data.ts) and the recovery of its signer together, as the signature pool does
 * them off the gateway thread. And `inlineRecovery`, a `SignerRecovery` of a digest on the
 * calling thread, for logins.
 *
 * May import: ./typed-data (types), ./recovery (type), ./signature, ./codes, ./address (type).
 * Invariants: exactly one signature per request (`signatures` holds one string), else
 * `Invalid signature`; a field that does not fit its signed type is `Invalid <field>`; the
 * signer is only a claim until `admission.ts` authorises it and consumes its nonce.
 */
import type { Address } from './address.ts';
import { AuthCode, refused, type AuthResult } from './codes.ts';
import type { RecoveryBackend } from './recovery.ts';
import { signatureBytes } from './signature.ts';
import type { Eip712Domain, MessageOf, PrimaryType } from './typed-data.ts';

/** Recovers the signer of a 32-byte digest from a hex signature; null when invalid. */
export type SignerRecovery = (digest: Uint8Array, signature: string) => Promise<Address | null>;

/** A `SignerRecovery` on the calling thread (logins; signed writes go to the pool). */
export function inlineRecovery(backend: RecoveryBackend): SignerRecovery {
  return (digest, signature) => {
    const bytes = signatureBytes(signature);
    return Promise.resolve(bytes === undefined ? null : backend.recover(digest, bytes));
  };
}

/**
 * Recovers the signer of a typed message: digest and recovery together, so the signature pool
 * can do both off the gateway thread (the digest is ~16 keccak blocks, most of a write's cost
 * on that thread). A field that does not fit its type is `Invalid <field>`.
 */
export type TypedRecovery = <T extends PrimaryType>(domain: Eip712Domain, primaryType: T, message: MessageOf[T], signature: string) => Promise<AuthResult<Address>>;

/** The address that signed `message` as `primaryType` under `domain`. */
export async function recoverRequestSigner<T extends PrimaryType>(
  recover: TypedRecovery,
  domain: Eip712Domain,
  primaryType: T,
  message: MessageOf[T],
  signatures: unknown,
): Promise<AuthResult<Address>> {
  if (!Array.isArray(signatures) || signatures.length !== 1 || typeof signatures[0] !== 'string') return refused(AuthCode.InvalidSignature);
  return recover(domain, primaryType, message, signatures[0]);
}
