/**
 * @module ledger/moves
 *
 * The moves of money every part of the ledger makes, each told to the listener as it happens:
 * an owner's collateral (`balance`), a position's new state (`position`), the insurance fund
 * (`insurance`). Each names its reason: no money moves without one.
 * May import: types/ids (types), ledger/.
 */
import type { BalanceReason, InsuranceReason, LedgerListener } from './events.ts';
import type { Position } from './position.ts';
import type { OwnerState } from './state.ts';
import type { OwnerIndex } from '../types/ids.ts';

/** The money the ledger holds outside the owners' accounts; one object per ledger, shared by its parts. */
export interface Funds {
  /** Negative = a deficit (see `MoneyReport.insuranceFund`). */
  insurance: bigint;
  feesCollected: bigint;
}

export function credit(emit: LedgerListener, o: OwnerState, delta: bigint, reason: BalanceReason, time: number): void {
  o.collateral += delta;
  emit({ type: 'balance', owner: o.owner, delta, collateral: o.collateral, reason, time });
}

export function emitPosition(emit: LedgerListener, owner: OwnerIndex, p: Position): void {
  emit({ type: 'position', owner, market: p.market, quantity: p.quantity, basis: p.basis, fees: p.fees, funding: p.funding, margin: p.margin, isolated: p.isolated, updatedAt: p.updatedAt });
}

export function moveInsurance(emit: LedgerListener, funds: Funds, delta: bigint, reason: InsuranceReason, owner: OwnerIndex, time: number): void {
  if (delta === 0n) return;
  funds.insurance += delta;
  emit({ type: 'insurance', delta, fund: funds.insurance, reason, owner, time });
}
