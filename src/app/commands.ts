/**
 * @module app/commands
 *
 * The application commands the sequencer journals: everything that changes state and is not
 * a book event. A command carries its time; executing the same commands and book events in
 * journal order rebuilds the same state (app/exchange.ts).
 *
 * Payloads are JSON (bigints as decimal strings): commands are few next to book events, which
 * travel as fixed binary records (transport/codec.ts). Kinds start at 64 so they never collide
 * with the codec's record kinds (commands < 16, book events 16–63).
 */
import type { OrderType } from '../types/orders.ts';
import type { Side } from '../engine/types.ts';
import type { MarketIndex, OrderId } from '../types/ids.ts';
import type { Address } from '../types/address.ts';

export const CommandKind = {
  SubmitOrder: 64,
  CancelOrder: 65,
  // 66 was a cancel by clientId, never produced (the gateway cancels by orderId): not to be reused.
  CancelAll: 67,
  SubmitPair: 68,
  SubmitSlices: 69,
  Deposit: 70,
  Withdraw: 71,
  Faucet: 72,
  Transfer: 73,
  SetMargin: 74,
  Delegation: 75,
  IndexPrice: 80,
  Tick: 81,
  Release: 82,
  Markets: 83,
} as const;
export type CommandKind = (typeof CommandKind)[keyof typeof CommandKind];

/** A signed order as admitted by the gateway, in integer units. */
export interface SubmitOrder {
  kind: typeof CommandKind.SubmitOrder;
  time: number;
  account: Address;
  subaccountIndex: number;
  market: MarketIndex;
  orderType: OrderType;
  side: Side;
  /** Ticks. */
  price: number;
  /** Lots, unsigned (`side` gives the direction). */
  quantity: number;
  /** Bits of `OrderFlag`. */
  flags: number;
  /** Milliseconds; 0 = good till cancelled. */
  expiresAt: number;
  nonce: number;
  clientId: string | null;
  originator: Address;
  /** Fraction of notional in 10^-8. */
  originatorFee: number;
  /** Ticks. */
  triggerPrice: number | null;
  parentOrderId: OrderId | null;
  period: number | null;
  /** Fraction at RATE_SCALE (0.05 = 5%). */
  trailingPercent: bigint | null;
  signer: Address;
  signature: string;
}

/** One order of a batch: a `SubmitOrder` without the command's kind and time (each has its own nonce and signature). */
export type BatchOrder = Omit<SubmitOrder, 'kind' | 'time'>;

/**
 * A TP/SL pair (POST /account/orders): one takeProfit and one stopLoss, one OCO group. Both
 * legs carry the same `parentOrderId`: null attaches the pair to the position, an orderId to
 * that resting order. Admitted whole or not at all.
 */
export interface SubmitPair {
  kind: typeof CommandKind.SubmitPair;
  time: number;
  takeProfit: BatchOrder;
  stopLoss: BatchOrder;
}

/**
 * A TWAP (child i enters at time + i × period) or an iceberg (the next child enters when the
 * previous one has fully filled): every child a signed order of its own, admitted all or none.
 */
export interface SubmitSlices {
  kind: typeof CommandKind.SubmitSlices;
  time: number;
  orderType: Extract<OrderType, 'twap' | 'iceberg'>;
  orders: BatchOrder[];
}

export interface CancelOrder {
  kind: typeof CommandKind.CancelOrder;
  time: number;
  orderId: OrderId;
  /** Who asked (the account or a trade delegate): recorded for audit. */
  caller: Address;
}

export interface CancelAll {
  kind: typeof CommandKind.CancelAll;
  time: number;
  account: Address;
  subaccountIndex: number;
  /** One market, or every market when null. */
  market: MarketIndex | null;
  caller: Address;
}

export interface MoneyCommand {
  kind: typeof CommandKind.Deposit | typeof CommandKind.Withdraw | typeof CommandKind.Faucet;
  time: number;
  account: Address;
  subaccountIndex: number;
  amount: bigint;
  /** Faucet only: most the address may receive from the faucet in the command's UTC day; unbounded when absent. */
  allowance?: bigint;
}

export interface Transfer {
  kind: typeof CommandKind.Transfer;
  time: number;
  accountFrom: Address;
  subaccountIndexFrom: number;
  accountTo: Address;
  subaccountIndexTo: number;
  amount: bigint;
  feedId: string;
  nonce: number;
  expiresAt: number;
  target: Address;
  signer: Address;
  signature: string;
}

export interface SetMargin {
  kind: typeof CommandKind.SetMargin;
  time: number;
  account: Address;
  subaccountIndex: number;
  market: MarketIndex;
  isolated: boolean;
  margin: bigint;
  nonce: number;
  expiresAt: number;
  signer: Address;
  signature: string;
}

export interface Delegation {
  kind: typeof CommandKind.Delegation;
  time: number;
  account: Address;
  subaccountIndex: number;
  delegate: Address;
  scopes: string;
  action: 'add' | 'remove';
  nonce: number;
  expiresAt: number;
  signer: Address;
  signature: string;
}

export interface IndexPrice {
  kind: typeof CommandKind.IndexPrice;
  time: number;
  market: MarketIndex;
  price: number;
}

/** The clock: expiry, funding samples and liquidation checks run at a tick's time. */
export interface Tick {
  kind: typeof CommandKind.Tick;
  time: number;
}

/**
 * The conditional timer of one market at a due time (a TWAP slice due, an untriggered order
 * expiring): what `Tick` does for conditional orders, sent when something is due rather than
 * once a second, and journaled so a replay releases at the same points.
 */
export interface Release {
  kind: typeof CommandKind.Release;
  time: number;
  market: MarketIndex;
}

/**
 * The markets' parameters from this record on: every market as the markets file writes it
 * (`marketsFileOf`, which `parseMarkets` reads back), the same markets in the same places and
 * units as before it, perhaps more appended. A start journals one where its markets file differs
 * from the journal's markets (and as the first record of a journal), before any command under the
 * new values: every replay then switches at the same point (docs/operations.md, "Changing the
 * markets file").
 */
export interface MarketsCommand {
  kind: typeof CommandKind.Markets;
  time: number;
  markets: Record<string, unknown>[];
}

export type Command =
  | SubmitOrder
  | SubmitPair
  | SubmitSlices
  | CancelOrder
  | CancelAll
  | MoneyCommand
  | Transfer
  | SetMargin
  | Delegation
  | IndexPrice
  | Tick
  | Release
  | MarketsCommand;

const BIGINT_FIELDS = ['amount', 'allowance', 'margin', 'trailingPercent'] as const;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function isCommandKind(kind: number): kind is CommandKind {
  return kind >= 64 && kind < 128;
}

const KNOWN_COMMAND_KINDS: ReadonlySet<number> = new Set(Object.values(CommandKind));

/** Whether this build knows command kind `kind` (a newer build may journal kinds it does not). */
export function isKnownCommandKind(kind: number): boolean {
  return KNOWN_COMMAND_KINDS.has(kind);
}

const bigintAsString = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

export function encodeCommand(command: Command): Uint8Array {
  return encoder.encode(commandText(command));
}

/** The command as the journal holds it: its JSON, bigints as decimal strings (`encodeCommand`'s bytes are its UTF-8). */
export function commandText(command: Command): string {
  // Money commands carry a bigint at the top: straight to the replacer (a throw costs more).
  if ('amount' in command || 'margin' in command) return JSON.stringify(command, bigintAsString);
  try {
    // Most commands hold no bigint: plain JSON, without a replacer called on every key.
    return JSON.stringify(command);
  } catch {
    return JSON.stringify(command, bigintAsString);
  }
}

function reviveBigints(raw: Record<string, unknown>): void {
  for (const field of BIGINT_FIELDS) {
    const v = raw[field];
    if (typeof v === 'string') raw[field] = BigInt(v);
  }
}

export function decodeCommand(bytes: Uint8Array): Command {
  const raw = JSON.parse(decoder.decode(bytes)) as Record<string, unknown>;
  reviveBigints(raw);
  // Batches nest their orders (SubmitPair's legs, SubmitSlices' children).
  for (const nested of [raw.takeProfit, raw.stopLoss, ...(Array.isArray(raw.orders) ? raw.orders : [])]) {
    if (typeof nested === 'object' && nested !== null) reviveBigints(nested as Record<string, unknown>);
  }
  return raw as unknown as Command;
}
