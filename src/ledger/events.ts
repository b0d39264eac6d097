/**
 * @module ledger/events
 *
 * What the ledger tells the world: one listener `(event) => void` receives plain objects in
 * the order things happen, synchronously, inside the command that caused them. They are
 * enough for the API and the private feeds: every balance change (with its cause), every
 * position change (full new state), every settled fill side, funding rates and payments,
 * transfers, margin changes, liquidation orders, ADL trades and insurance-fund movements.
 * The listener must not throw or call back into the ledger.
 * May import: types/ids, engine/types (Side).
 */
import type { Side } from '../engine/types.ts';
import type { AccountIndex, MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

export type BalanceReason = 'deposit' | 'withdraw' | 'faucet' | 'transfer' | 'fill' | 'funding' | 'originatorFee' | 'margin' | 'shortfall';

export interface BalanceEvent {
  type: 'balance';
  owner: OwnerIndex;
  /** Change of cross collateral. */
  delta: bigint;
  collateral: bigint;
  reason: BalanceReason;
  time: number;
}

export interface PositionEvent {
  type: 'position';
  owner: OwnerIndex;
  market: MarketIndex;
  /** Signed lots; 0 = closed. */
  quantity: number;
  basis: bigint;
  fees: bigint;
  funding: bigint;
  margin: bigint;
  isolated: boolean;
  updatedAt: number;
}

/** One side of a settled fill: the API's Account fill. */
export interface FillEvent {
  type: 'fill';
  owner: OwnerIndex;
  market: MarketIndex;
  /** 0 for an ADL trade. */
  orderId: OrderId;
  side: Side;
  price: number;
  /** Lots (unsigned; `side` gives the direction). */
  quantity: number;
  /** Fill notional, collateral units. */
  notional: bigint;
  /** Trading fee: + paid, − rebate (originator and liquidation fees excluded). */
  fee: bigint;
  realizedPnl: bigint;
  realizedFunding: bigint;
  /** Entry notional released by the closed lots (|closed basis|). */
  realizedExposure: bigint;
  /** Volume points: the fill's notional in collateral units. */
  realizedPoints: bigint;
  maker: boolean;
  liquidation: boolean;
  time: number;
}

export interface FundingRateEvent {
  type: 'fundingRate';
  market: MarketIndex;
  rate: bigint;
  time: number;
}

export interface FundingPaymentEvent {
  type: 'fundingPayment';
  owner: OwnerIndex;
  market: MarketIndex;
  /** + received, − paid. */
  amount: bigint;
  rate: bigint;
  time: number;
}

export interface TransferEvent {
  type: 'transfer';
  from: OwnerIndex;
  to: OwnerIndex;
  amount: bigint;
  time: number;
}

export interface MarginEvent {
  type: 'margin';
  owner: OwnerIndex;
  market: MarketIndex;
  isolated: boolean;
  fraction: bigint;
  time: number;
}

/** A liquidation order the application must send to the book (reduce-only IOC). */
export interface LiquidationOrder {
  owner: OwnerIndex;
  account: AccountIndex;
  market: MarketIndex;
  side: Side;
  price: number;
  quantity: number;
  bankruptcyPrice: number;
}

/**
 * A liquidation that waits for its owner's orders to leave the books before it is priced: the
 * application cancels `owner`'s orders in `market` (null: in every market, a cross
 * liquidation's scope); the order follows once their ends are back (`Ledger.readyLiquidations`).
 */
export interface LiquidationCancel {
  owner: OwnerIndex;
  market: MarketIndex | null;
}

export interface LiquidationEvent {
  type: 'liquidation';
  order: LiquidationOrder;
  time: number;
}

export interface DeleverageEvent {
  type: 'adl';
  /** The bankrupt owner. */
  owner: OwnerIndex;
  counterparty: OwnerIndex;
  market: MarketIndex;
  price: number;
  /** Lots the bankrupt owner closed with this counterparty. */
  quantity: number;
  time: number;
}

/**
 * A loss neither the bankrupt's equity nor the insurance fund could pay, and no position was
 * left to deleverage (the loss was realised by a fill): `counterparty`'s profitable position
 * opposite it in `market` pays `amount` out of its unrealised profit (its entry cost moves
 * against it by that much; a `position` event follows).
 */
export interface SocialisedLossEvent {
  type: 'socialisedLoss';
  /** The bankrupt owner. */
  owner: OwnerIndex;
  counterparty: OwnerIndex;
  market: MarketIndex;
  amount: bigint;
  time: number;
}

export type InsuranceReason = 'deposit' | 'liquidationFee' | 'shortfall' | 'fundingDust';

export interface InsuranceEvent {
  type: 'insurance';
  delta: bigint;
  fund: bigint;
  reason: InsuranceReason;
  owner: OwnerIndex;
  time: number;
}

export type LedgerEvent =
  | BalanceEvent
  | PositionEvent
  | FillEvent
  | FundingRateEvent
  | FundingPaymentEvent
  | TransferEvent
  | MarginEvent
  | LiquidationEvent
  | DeleverageEvent
  | SocialisedLossEvent
  | InsuranceEvent;

export type LedgerListener = (event: LedgerEvent) => void;
