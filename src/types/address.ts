/**
 * @module types/address
 *
 * An account's address, as every room carries it: lowercase `0x` + 40 hex digits. Declared
 * here (the type and the zero address, nothing that runs), so the cores (the ledger's registry) and the application can name it
 * without depending on auth/. It is made where an address enters: auth/address `toAddress`
 * (requests, signatures) and the ledger's `normalizeAddress` (registration, snapshot restore);
 * everywhere else an `Address` is only passed on.
 * May import: nothing.
 */

/** Lowercase `0x` + 40 hex digits (the template type checks the prefix; the makers check the rest). */
export type Address = `0x${string}`;

/** The address nobody holds a key to: an order's originator when it has none. */
export const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';
