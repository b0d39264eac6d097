/**
 * @module app/codes
 *
 * What `Exchange.execute` answers, and the refusals of this stage (9100s) — those that are
 * neither auth (1000s), ledger (2000s), engine (3000s) nor conditional-book rules. HTTP maps
 * every code to its status and text in one place (http/errors).
 * May import: types/ids (types).
 */
import type { OrderId } from '../types/ids.ts';
export const ExchangeCode = {
  OrderTypeNotSupported: 9101,
  DuplicateClientId: 9102,
  OrderNotFound: 9103,
  OriginatorNotFound: 9104,
  /** A transfer below the minimum (app/account-limits.ts); params: minimum (USD). */
  TransferBelowMinimum: 9105,
  /** A credit that would create an address's subaccount beyond the bound; params: max. */
  TooManySubaccounts: 9106,
  /** The order's originatorFee is above its market's `maxOriginatorFee`. */
  OriginatorFeeTooHigh: 9107,
  /** A faucet credit beyond the `allowance` its command carries for the address's UTC day (app/faucet-day.ts). */
  FaucetAllowanceUsed: 9108,
  /** A submission that would take a subaccount past its bound on open orders (app/account-limits.ts); params: max. */
  TooManyOpenOrders: 9109,
} as const;

export interface ExecuteResult {
  /** 0 when accepted; otherwise a code of auth (1000s), ledger (2000s), engine (3000s) or this stage. */
  code: number;
  params?: Readonly<Record<string, string>>;
  /** False when the command was refused before it changed anything: it need not be journaled. */
  changed: boolean;
  /** The order a submit or cancel concerns (a batch: its first order). */
  orderId?: OrderId;
  /** Every order of a batch (TP/SL pair, TWAP, iceberg), in request order; the open orders a cancel-all ended. */
  orderIds?: OrderId[];
  /** Markets a book command was routed to, once per command (the sequencer awaits their results). */
  routed: number[];
}

/** A refusal before anything changed: nothing to journal. */
export const notChanged = (code: number, params?: Readonly<Record<string, string>>): ExecuteResult => ({ code, params, changed: false, routed: [] });
