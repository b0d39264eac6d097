/**
 * @module config/ip-address
 *
 * IP addresses in one canonical form, so that a setting (`TRUSTED_PROXIES=::1`) and what a
 * socket reports (uWebSockets.js: `0000:…:0001`) compare equal.
 * May import: node:net.
 */
import { isIP } from 'node:net';

/**
 * An IP address in one canonical form, or undefined when it is not one: IPv4 dotted, IPv6
 * compressed lowercase (uWebSockets.js reports `0000:…:0001` where a setting says `::1`), and
 * IPv4-mapped IPv6 as plain IPv4.
 */
export function canonicalIp(address: string): string | undefined {
  const kind = isIP(address);
  if (kind === 4) return address;
  if (kind !== 6) return undefined;
  const compressed = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (mapped === null) return compressed;
  const high = parseInt(mapped[1], 16);
  const low = parseInt(mapped[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
