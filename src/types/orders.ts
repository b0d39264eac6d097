/**
 * @module types/orders
 *
 * The words an order is described in, the same from the signed request through the commands,
 * the order registry, history and the API: its type and its status (design.md). The order types
 * and statuses are listed here once; the signed message (auth/typed-data), the request parser,
 * the query filters and the API's schemas (http/) derive theirs from these lists. (The
 * TypeScript client, src/client, keeps its own copy: it is published without the server.)
 * May import: nothing.
 */

/** What a user may place. */
export const ORDER_TYPES = ['limit', 'twap', 'takeProfit', 'stopLoss', 'trailingStop', 'iceberg'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/**
 * The order types a signed message may name, in the EIP-712 enum's order: `unsupported` is its
 * zero, signable and refused by name, never placed.
 */
export const SIGNED_ORDER_TYPES = ['unsupported', ...ORDER_TYPES] as const;
export type SignedOrderType = (typeof SIGNED_ORDER_TYPES)[number];

/**
 * Where an order stands; terminal ones (`isTerminal`) are filled, cancelled, expired, rejected.
 * `triggered` is the registry's instant between a conditional order's release and its book.
 */
export const ORDER_STATUSES = ['new', 'partiallyFilled', 'filled', 'cancelled', 'expired', 'rejected', 'untriggered', 'triggered'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
