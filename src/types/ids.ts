/**
 * @module types/ids
 *
 * The identifiers every room passes around, as branded types: a market index, an orderId, the
 * ledger's interned account index and its interned owner index (an address and a subaccount)
 * are all numbers at run time, and the compiler keeps them apart — a `MarketIndex` never goes
 * where an `OrderId` is asked for, nor an `AccountIndex` where an `OwnerIndex` is
 * (nautilus_trader's model: an identifier is its own type). The brands are types only: nothing
 * is allocated or checked on a hot path, a branded number is the number. An account's address
 * is types/address `Address` (lowercase `0x` + 40 hex digits, made by its `toAddress`).
 *
 * The brand is required: a plain number is none of them, so an identifier has to be made, and
 * the compiler finds every place one is conjured from a bare number. Tests, benchmarks and the
 * simulator make theirs the same way: test/fixtures/ids (`orderNo(11)`, `marketNo(0)`,
 * `accountNo(1)`, `ownerNo(1)`) or a fixture constant that names itself (`BTC = marketNo(0)`), in the
 * fixtures and the generators where the number enters, not as casts at each call.
 *
 * Each brand is made in one place, where the value enters the process: the markets file
 * (config/market), the codec's decoders (transport/codec), snapshot and history restore, the
 * HTTP parsers (engine/types `parseOrderId`), or the function that allocates it (`orderIdOf`,
 * the ledger's account registry, which interns accounts and owners).
 * Everywhere else a branded value is only passed on.
 * May import: nothing.
 */

declare const brand: unique symbol;
/** `T` known to be a `B`: assignable to `T`; neither a plain `T` nor a `T` branded otherwise is a `B` (see the header). */
type Brand<T, B extends string> = T & { readonly [brand]: B };

/** A market's position in the markets file (0, 1, 2…): `MarketSpec.index`. */
export type MarketIndex = Brand<number, 'MarketIndex'>;
/** An order's id: the market index in its high bits, the market's order counter below (engine/types `orderIdOf`). */
export type OrderId = Brand<number, 'OrderId'>;
/** A wallet address interned by the ledger: what the books compare for self-trade prevention and clientIds. */
export type AccountIndex = Brand<number, 'AccountIndex'>;
/**
 * An owner, (address, subaccount index), interned by the ledger — its "owner id": what holds
 * positions, collateral and orders, and what may cancel an order. One account has an owner per
 * subaccount, so an owner is not an account.
 */
export type OwnerIndex = Brand<number, 'OwnerIndex'>;

/** Where a record or a field has room for an orderId and holds none (a position-attached pair's parent, say). */
export const NO_ORDER = 0 as OrderId;

/** The account index of no account: the ledger interns from 1. */
export const NO_ACCOUNT = 0 as AccountIndex;

/** The owner index of no owner: the ledger interns from 1. */
export const NO_OWNER = 0 as OwnerIndex;

/** A market index read from a record, a snapshot or a request that was checked against the markets. */
export function asMarketIndex(n: number): MarketIndex {
  return n as MarketIndex;
}

/** An account index read from a record or a snapshot, or handed out by the ledger. */
export function asAccountIndex(n: number): AccountIndex {
  return n as AccountIndex;
}

/** An owner index read from a record or a snapshot, or handed out by the ledger. */
export function asOwnerIndex(n: number): OwnerIndex {
  return n as OwnerIndex;
}
