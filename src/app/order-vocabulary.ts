/**
 * @module app/order-vocabulary
 *
 * The words an order is described in, the same from the signed request through the commands,
 * the order registry, history and the API: its type and its status (design.md).
 * May import: nothing.
 */

/** What a user may place; `unsupported` exists only as the EIP-712 enum's zero (auth/typed-data). */
export const ORDER_TYPES = ['limit', 'twap', 'takeProfit', 'stopLoss', 'trailingStop', 'iceberg'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** Where an order stands; terminal ones (`isTerminal`) are filled, cancelled, expired, rejected. */
export type OrderStatus = 'new' | 'partiallyFilled' | 'filled' | 'cancelled' | 'expired' | 'rejected' | 'untriggered' | 'triggered';
