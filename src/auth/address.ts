/**
 * @module auth/address
 *
 * Ethereum addresses and hex bytes at the edge of the auth part. Inside it an address is
 * always the lowercase `0x` + 40 hex form (`Address`, made by `toAddress`: types/address, given
 * on from here to the gateway and the feeds); EIP-55 checksummed text is produced only where a
 * standard asks for it (the SIWE message). What needs keccak is here, so the journaled stores
 * (nonces, delegation) import types/address and load no WebAssembly.
 * May import: ./keccak, types/address.
 */
import { keccak256 } from './keccak.ts';
import type { Address } from '../types/address.ts';

export { ZERO_ADDRESS, isAddress, lowercaseAddress, toAddress, type Address } from '../types/address.ts';

const HEX_CHARS = '0123456789abcdef';

export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX_CHARS[bytes[i] >> 4] + HEX_CHARS[bytes[i] & 15];
  return out;
}

function nibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/** Decodes `hex` (no prefix) into `out` at `offset`; false on a non-hex digit or odd length. */
export function hexInto(hex: string, out: Uint8Array, offset = 0): boolean {
  if (hex.length % 2 !== 0 || offset + hex.length / 2 > out.length) return false;
  for (let i = 0, j = offset; i < hex.length; i += 2, j++) {
    const hi = nibble(hex.charCodeAt(i));
    const lo = nibble(hex.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) return false;
    out[j] = (hi << 4) | lo;
  }
  return true;
}

/** The address of a 64-byte uncompressed public key (x ‖ y): the last 20 bytes of its keccak. */
export function addressOfPublicKey(xy: Uint8Array): Address {
  return `0x${bytesToHex(keccak256(xy).subarray(12))}`;
}

/** EIP-55 mixed-case checksum form of an address. */
export function checksumAddress(address: Address): string {
  const hex = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak256(new TextEncoder().encode(hex)));
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i], 16) >= 8 ? hex[i].toUpperCase() : hex[i];
  return out;
}
