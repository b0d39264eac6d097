/**
 * @module types/address
 *
 * An account's address, as every room carries it: lowercase `0x` + 40 hex digits. Declared
 * here (the type, the zero address and the making of one from text: no hashing, nothing done as
 * this loads), so the cores (the ledger's registry), the application and auth's journaled stores
 * name it without loading auth/address, whose keccak compiles WebAssembly as it loads (the EIP-55
 * checksum and the address of a public key stay there). It is made where an address enters:
 * `toAddress` (requests, signatures, delegation restore) and the ledger's `normalizeAddress`
 * (registration, snapshot restore); everywhere else an `Address` is only passed on.
 * May import: nothing.
 * Invariants: `toAddress` accepts any letter case (the checksum is not enforced: an address in
 * a signed request is bound by the signature anyway) and returns lowercase.
 */

/** Lowercase `0x` + 40 hex digits (the template type checks the prefix; the makers check the rest). */
export type Address = `0x${string}`;

/** The address nobody holds a key to: an order's originator when it has none. */
export const ZERO_ADDRESS: Address = '0x0000000000000000000000000000000000000000';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function toAddress(text: unknown): Address | undefined {
  return typeof text === 'string' && ADDRESS.test(text) ? (text.toLowerCase() as Address) : undefined;
}

/**
 * The address in a request field its schema already checked (`0x` + 40 hex digits, any case,
 * http/validation): lowercased, as `toAddress` would return it, without testing it twice.
 */
export function lowercaseAddress(checked: string): Address {
  return checked.toLowerCase() as Address;
}

export function isAddress(value: unknown): value is Address {
  return typeof value === 'string' && ADDRESS.test(value) && value === value.toLowerCase();
}
