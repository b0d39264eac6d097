/**
 * @module http/client-address
 *
 * The address a request comes from, for the per-source-address budget of public routes. It is
 * the socket's peer, unless that peer is a proxy the operator trusts (`TRUSTED_PROXIES`): then
 * the `X-Forwarded-For` chain is read from the right, skipping trusted proxies, and the first
 * address not among them is the client. Entries left of it are whatever the client wrote and
 * are never believed. Without trusted proxies the header is ignored: anybody can write it.
 * May import: config/ip-address.
 */
import { canonicalIp } from '../config/ip-address.ts';

/** The client behind `peer` (canonical form), given the request's `X-Forwarded-For` header ('' when absent). */
export function clientAddress(peer: string, forwardedFor: string, trusted: ReadonlySet<string>): string {
  if (trusted.size === 0 || !trusted.has(peer) || forwardedFor === '') return peer;
  const hops = forwardedFor.split(',');
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalIp(hops[i].trim());
    if (hop === undefined) break; // a malformed entry: stop at the last address vouched for
    client = hop;
    if (!trusted.has(hop)) break;
  }
  return client;
}
