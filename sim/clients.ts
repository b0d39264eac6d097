/**
 * @module sim/clients
 *
 * The simulated users: accounts with their nonce counters, the orders they know of, the
 * delegates they granted; and what a strategy sees (`SimContext`) and returns (`Strategy`).
 * Commands are built as the gateway and the signature pool hand them to the sequencer — the
 * signer already recovered — so no signature is computed (the signer is the account, or its
 * delegate for a delegated order).
 *
 * May import: src/ (types and read-only state), sim/prng.
 */
import type { MarketSpec } from '../src/config/market.ts';
import { parseDecimal } from '../src/numeric/decimal.ts';
import type { Side } from '../src/engine/types.ts';
import { CommandKind, type BatchOrder, type Command } from '../src/app/commands.ts';
import type { Exchange } from '../src/app/exchange.ts';
import type { OrderType } from '../src/types/orders.ts';
import type { Prng } from './prng.ts';
import type { MarketIndex, OrderId } from '../src/types/ids.ts';
import { ZERO_ADDRESS, type Address } from '../src/types/address.ts';

/** Collateral units per USD (COLLATERAL_SCALE 6). */
export const USD = 1_000_000n;

export interface SimAccount {
  index: number;
  address: Address;
  /** The last nonce this account's signers used (one counter for account and delegate alike). */
  nonce: number;
  /** A delegate holding `trade`, when one was granted and not revoked. */
  delegate: Address | null;
  /** Recent orderIds of this account (live or not: a cancel of a finished order is bad input too). */
  orders: OrderId[];
  clientIds: number;
}

export class Clients {
  readonly accounts: SimAccount[];
  /** Addresses handed out beyond the accounts (a dust flood's recipients). */
  strangers = 0;
  /** Commands the exchange must refuse (a relayed order): the simulator checks their replies. */
  readonly mustRefuse = new WeakSet<Command>();
  /** What a strategy of several moves remembers between them (per seed). */
  readonly plans = new Map<string, number>();
  /** Commands a strategy sends right behind the one it returned, before any market thread runs (the simulator sends them). */
  readonly followUps: Command[] = [];

  constructor(count: number) {
    this.accounts = Array.from({ length: count }, (_, i) => ({ index: i, address: addressOf(i + 1), nonce: 0, delegate: null, orders: [], clientIds: 0 }));
  }

  pick(rng: Prng): SimAccount {
    return rng.pick(this.accounts);
  }

  nonce(account: SimAccount): number {
    return ++account.nonce;
  }

  remember(account: SimAccount, orderId: OrderId): void {
    account.orders.push(orderId);
    if (account.orders.length > 32) account.orders.splice(0, 16);
  }
}

/** A well-formed lowercase address for account number `n`. */
export function addressOf(n: number): Address {
  return `0x${n.toString(16).padStart(40, '0')}`;
}

/** What a strategy sees: the clock, the markets, the exchange's state (read only), the users. */
export interface SimContext {
  readonly rng: Prng;
  readonly time: number;
  readonly markets: readonly MarketSpec[];
  readonly exchange: Exchange;
  readonly clients: Clients;
  /** The index price each market started at, ticks. */
  readonly initialTicks: readonly number[];
}

/** A kind of user behaviour: returns its next command, or null when it has nothing to do now. */
export interface Strategy {
  readonly name: string;
  next(ctx: SimContext): Command | null;
}

/** A market's reference price in ticks: the index, or where it started. */
export function referenceTicks(ctx: SimContext, market: MarketIndex): number {
  const index = ctx.exchange.ledger.prices(market).index;
  return index > 0 ? index : ctx.initialTicks[market];
}

/** `ticks` moved by `bps` basis points (rounded, at least one tick). */
export function offsetTicks(ticks: number, bps: number): number {
  return Math.max(1, Math.round(ticks * (1 + bps / 10_000)));
}

export function initialTicks(market: MarketSpec): number {
  const price = parseDecimal(market.initialPrice, market.priceScale, BigInt(Number.MAX_SAFE_INTEGER));
  if (!price.ok) throw new Error(`sim: market ${market.symbol} initialPrice ${market.initialPrice}`);
  return Number(price.value / market.tickUnits);
}

export interface OrderFields {
  market: MarketIndex;
  side: Side;
  price: number;
  quantity: number;
  flags?: number;
  orderType?: OrderType;
  subaccountIndex?: number;
  expiresAt?: number;
  clientId?: string | null;
  originator?: Address;
  originatorFee?: number;
  triggerPrice?: number | null;
  parentOrderId?: OrderId | null;
  period?: number | null;
  trailingPercent?: bigint | null;
  signer?: Address;
  nonce?: number;
}

/** One signed order as the signature pool delivers it (signer recovered, nonce fresh unless given). */
export function batchOrder(ctx: SimContext, account: SimAccount, f: OrderFields): BatchOrder {
  return {
    account: account.address,
    subaccountIndex: f.subaccountIndex ?? 0,
    market: f.market,
    orderType: f.orderType ?? 'limit',
    side: f.side,
    price: f.price,
    quantity: f.quantity,
    flags: f.flags ?? 0,
    expiresAt: f.expiresAt ?? 0,
    nonce: f.nonce ?? ctx.clients.nonce(account),
    clientId: f.clientId ?? null,
    originator: f.originator ?? ZERO_ADDRESS,
    originatorFee: f.originatorFee ?? 0,
    triggerPrice: f.triggerPrice ?? null,
    parentOrderId: f.parentOrderId ?? null,
    period: f.period ?? null,
    trailingPercent: f.trailingPercent ?? null,
    signer: f.signer ?? account.address,
    signature: '0x',
  };
}

export function submitOrder(ctx: SimContext, account: SimAccount, f: OrderFields): Command {
  return { kind: CommandKind.SubmitOrder, time: ctx.time, ...batchOrder(ctx, account, f) };
}

/** Lots worth about `usd` dollars at `ticks` in `market` (at least its minimum size). */
export function lotsForUsd(market: MarketSpec, ticks: number, usd: number): number {
  // notional (USD) = ticks × tickSize × lots × lotSize
  const tick = Number(market.tickSize);
  const lot = Number(market.lotSize);
  return Math.max(market.minSizeLots, Math.floor(usd / (ticks * tick * lot)));
}
