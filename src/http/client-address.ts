/**
 * @module http/client-address
 *
 * The address a request comes from, for the per-source-address budget of public routes. It is
 * the socket's peer, unless that peer is a proxy the operator trusts (`TRUSTED_PROXIES`): then
 * the `X-Forwarded-For` chain is read from the right, skipping trusted proxies, and the first
 * address not among them is the client. Entries left of it are whatever the client wrote and
 * are never believed. Without trusted proxies the header is ignored: anybody can write it.
 * May import: node:net.
 */
import { isIP } from 'node:net';

/** The client behind `peer`, given the request's `X-Forwarded-For` header ('' when absent). */
export function clientAddress(peer: string, forwardedFor: string, trusted: ReadonlySet<string>): string {
  if (trusted.size === 0 || !trusted.has(peer) || forwardedFor === '') return peer;
  const hops = forwardedFor.split(',');
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalize(hops[i].trim());
    if (hop === undefined) break; // a malformed entry: stop at the last address vouched for
    client = hop;
    if (!trusted.has(hop)) break;
  }
  return client;
}

/**
 * An IP address in one canonical form, or undefined when it is not one: IPv4 dotted, IPv6
 * compressed lowercase (uWebSockets.js reports `0000:…:0001` where a setting says `::1`), and
 * IPv4-mapped IPv6 as plain IPv4.
 */
export function normalize(address: string): string | undefined {
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
