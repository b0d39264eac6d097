/**
 * @module journal/checksum
 *
 * CRC-32C (Castagnoli, the checksum of iSCSI, ext4 and TigerBeetle) and CRC-32 (IEEE, zlib's)
 * over byte ranges, table-driven and sliced by 8 bytes. The journal uses CRC-32C as each
 * record's checksum and the pair (CRC-32C, CRC-32) as its 64-bit chain value: two different
 * polynomials, so the pair is not one CRC in disguise.
 *
 * Complexity: O(n), about 1 GB/s in V8 for records of 100+ bytes; no allocation.
 * May import: nothing.
 */

function makeTables(polynomial: number): Uint32Array {
  const table = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ polynomial : c >>> 1;
    table[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = table[n];
    for (let slice = 1; slice < 8; slice++) {
      c = table[c & 0xff] ^ (c >>> 8);
      table[slice * 256 + n] = c;
    }
  }
  return table;
}

const CRC32C_TABLE = makeTables(0x82f63b78);
const CRC32_TABLE = makeTables(0xedb88320);

function crc(table: Uint32Array, bytes: Uint8Array, start: number, end: number): number {
  let c = -1;
  let i = start;
  for (const last8 = end - 8; i <= last8; i += 8) {
    const a = c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    c =
      table[1792 + (a & 0xff)] ^
      table[1536 + ((a >>> 8) & 0xff)] ^
      table[1280 + ((a >>> 16) & 0xff)] ^
      table[1024 + (a >>> 24)] ^
      table[768 + bytes[i + 4]] ^
      table[512 + bytes[i + 5]] ^
      table[256 + bytes[i + 6]] ^
      table[bytes[i + 7]];
  }
  for (; i < end; i++) c = table[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** CRC-32C of `bytes[start, end)`. */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return crc(CRC32C_TABLE, bytes, start, end);
}

/** CRC-32 (IEEE 802.3) of `bytes[start, end)`. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return crc(CRC32_TABLE, bytes, start, end);
}
