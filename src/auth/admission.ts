/**
 * @module auth/admission
 *
 * The synchronous step after recovery: a signed write is admitted when its signer may act
 * (delegation.ts) and its nonce is fresh (nonces.ts); admitting consumes the nonce. Run it on
 * the thread that owns the two stores (the sequencer), with no `await` between check and
 * record, and journal what it admits.
 *
 * May import: ./nonces, ./delegation, ./codes, types/address (types).
 * Invariants: a refused write records nothing; a batch is all or nothing; a Delegation change
 * consumes the account's own nonce and is applied in the same step.
 */
import type { Address } from '../types/address.ts';
import { accepted, type AuthResult } from './codes.ts';
import type { DelegationChange, DelegationStore, SignedWrite } from './delegation.ts';
import type { NonceStore, NonceUse } from './nonces.ts';

export interface AuthState {
  nonces: NonceStore;
  delegations: DelegationStore;
}

export type SignedWriteRequest = SignedWrite & { nonce: number; expiresAt: number };

function nonceUse(write: SignedWriteRequest): NonceUse {
  return write.action === 'transfer'
    ? { account: write.accountFrom, subaccountIndex: write.subaccountIndexFrom, signer: write.signer, nonce: write.nonce, expiresAt: write.expiresAt }
    : { account: write.account, subaccountIndex: write.subaccountIndex, signer: write.signer, nonce: write.nonce, expiresAt: write.expiresAt };
}

/** Authorises an order, margin update or transfer and consumes its nonce. */
export function admitSignedWrite(state: AuthState, write: SignedWriteRequest, now: number): AuthResult<void> {
  const authorized = state.delegations.authorizeWrite(write);
  if (!authorized.ok) return authorized;
  return state.nonces.use(nonceUse(write), now);
}

/** A batch of orders: every element authorised and fresh, or nothing recorded (`index` = first refused). */
export function admitSignedBatch(state: AuthState, writes: readonly SignedWriteRequest[], now: number): AuthResult<void> & { index?: number } {
  for (let i = 0; i < writes.length; i++) {
    const authorized = state.delegations.authorizeWrite(writes[i]);
    if (!authorized.ok) return { ...authorized, index: i };
  }
  return state.nonces.useMany(writes.map(nonceUse), now);
}

/** A signed Delegation change: signed by the account itself, nonce consumed, change applied. */
export function admitDelegationChange(
  state: AuthState,
  change: DelegationChange & { nonce: number; expiresAt: number },
  signer: Address,
  now: number,
): AuthResult<void> {
  const checked = state.delegations.check(change, signer);
  if (!checked.ok) return checked;
  const use: NonceUse = { account: checked.value.account, subaccountIndex: change.subaccountIndex, signer, nonce: change.nonce, expiresAt: change.expiresAt };
  const fresh = state.nonces.use(use, now);
  if (!fresh.ok) return fresh;
  state.delegations.apply(change, signer);
  return accepted(undefined);
}
