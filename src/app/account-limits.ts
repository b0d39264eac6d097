/**
 * @module app/account-limits
 *
 * What bounds the accounts a user can make (issue 13, dust accounts). Every owner (address,
 * subaccount) costs the exchange memory and snapshot bytes for as long as it exists, and a
 * transfer or a faucet credit creates one for anybody. So:
 *  - a transfer moves at least `minTransfer` (default 1 USD): a new account at an address its
 *    sender does not control costs the sender at least that much, for good;
 *  - an address holds at most `maxSubaccounts` subaccounts (default 32): a transfer or a faucet
 *    credit that would create one more is refused. Operator deposits are not bounded (the
 *    operator's bridge moved real money, and refusing it would strand it);
 *  - a subaccount holds at most `maxOpenOrders` open orders (default 1,000): resting,
 *    untriggered and pending TWAP/iceberg children alike. An order resting at one tick of the
 *    minimum size holds two base units of margin and an untriggered one none, so money does not
 *    bound them; a submission that would pass the bound is refused whole.
 * The first two are checked in `Exchange.execute` before anything changes (no nonce spent), the
 * third once the submission's nonces are spent (journaled as rejected, like a clientId in use),
 * so the live exchange, replay and the simulator apply one rule. docs/ledger.md states the
 * memory budget per account and per order.
 *
 * May import: config/market (collateral scale), numeric/decimal, ledger/ledger (types),
 * types/address (types), app/codes.
 */
import { COLLATERAL_SCALE } from '../config/market.ts';
import { formatDecimal } from '../numeric/decimal.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { Address } from '../types/address.ts';
import { ExchangeCode, notChanged, type ExecuteResult } from './codes.ts';

export interface AccountLimits {
  /** Smallest transfer, collateral base units (USD × 10^6). */
  minTransfer: bigint;
  /** Most subaccounts one address may hold. */
  maxSubaccounts: number;
  /** Most open orders (resting, untriggered, pending children) one subaccount may hold. */
  maxOpenOrders: number;
}

export const DEFAULT_ACCOUNT_LIMITS: AccountLimits = { minTransfer: 10n ** BigInt(COLLATERAL_SCALE), maxSubaccounts: 32, maxOpenOrders: 1_000 };

/** Why crediting (address, subaccountIndex) may not create it, or undefined. */
export function newSubaccountRefusal(limits: AccountLimits, ledger: Ledger, address: Address, subaccountIndex: number): ExecuteResult | undefined {
  if (ledger.findOwner(address, subaccountIndex) !== undefined) return undefined;
  if (ledger.registry.subaccountCount(address) < limits.maxSubaccounts) return undefined;
  return notChanged(ExchangeCode.TooManySubaccounts, { max: String(limits.maxSubaccounts) });
}

/** Why a transfer breaks the account limits, or undefined. */
export function transferRefusal(limits: AccountLimits, ledger: Ledger, amount: bigint, accountTo: Address, subaccountIndexTo: number): ExecuteResult | undefined {
  if (amount < limits.minTransfer) return notChanged(ExchangeCode.TransferBelowMinimum, { minimum: formatDecimal(limits.minTransfer, COLLATERAL_SCALE) });
  return newSubaccountRefusal(limits, ledger, accountTo, subaccountIndexTo);
}

/** Why `adding` more open orders would take `owner` (holding `open`) past the bound, or undefined. */
export function openOrdersRefusal(limits: AccountLimits, open: number, adding: number): { code: number; params: Readonly<Record<string, string>> } | undefined {
  return open + adding > limits.maxOpenOrders ? { code: ExchangeCode.TooManyOpenOrders, params: { max: String(limits.maxOpenOrders) } } : undefined;
}
