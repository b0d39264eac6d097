/**
 * @module ws/channels
 *
 * The feeds' channel names: parsing what a client subscribes or unsubscribes to into a
 * canonical channel, or the text that refuses it. Public channels are `book.`, `trades.`,
 * `prices.`, `summary.` + symbol and `candles.<symbol>.<interval>`; a private one is
 * `account.<address>.<subaccountIndex>`, optionally `{channel, since}`, and subscribing to it
 * takes a logged-in caller that is the account or a delegate holding `read`.
 * May import: auth/address, auth/delegation (types), config/market, history/candles, http/errors.
 */
import { toAddress, type Address } from '../auth/address.ts';
import type { DelegationStore } from '../auth/delegation.ts';
import { findMarket, type MarketSpec } from '../config/market.ts';
import { CANDLE_INTERVALS, intervalByName, type CandleInterval } from '../history/candles.ts';
import { codeFailure, failure, GatewayCode } from '../http/errors.ts';

export type Channel =
  | { kind: 'book' | 'trades' | 'prices' | 'summary'; name: string; market: MarketSpec }
  | { kind: 'candles'; name: string; market: MarketSpec; interval: CandleInterval }
  | { kind: 'account'; name: string; account: Address; subaccountIndex: number; since: number | undefined };

export type AccountChannel = Extract<Channel, { kind: 'account' }>;

/** What parsing reads: the markets, and who may read an account. */
export interface ChannelPorts {
  markets: readonly MarketSpec[];
  delegations: Pick<DelegationStore, 'authorizeCaller'>;
}

/**
 * A channel entry: a name, or `{channel, since}` for a private channel; the refusal text
 * otherwise. `caller` is the connection's logged-in account (null before `login`): only
 * subscribing to a private channel needs it.
 */
export function parseChannel(ports: ChannelPorts, caller: Address | null, entry: unknown, subscribing: boolean): Channel | string {
  let name: unknown = entry;
  let since: number | undefined;
  if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
    const e = entry as { channel?: unknown; since?: unknown };
    name = e.channel;
    if (e.since !== undefined) {
      if (typeof e.since !== 'number' || !Number.isSafeInteger(e.since) || e.since < 0) return `since must be an integer >= 0, got ${JSON.stringify(e.since)}`;
      since = e.since;
    }
  }
  if (typeof name !== 'string') return 'A channel is a name, or {"channel": name, "since": n}';
  const parts = name.split('.');
  const kind = parts[0];
  if (kind === 'account') {
    if (parts.length !== 3) return `Unknown channel ${name}; an account channel is account.<address>.<subaccountIndex>`;
    const account = toAddress(parts[1]);
    if (account === undefined) return 'account must be a 0x-prefixed 20-byte hex address';
    const subaccountIndex = /^\d{1,10}$/.test(parts[2]) ? Number(parts[2]) : -1;
    const canonical = `account.${account}.${subaccountIndex}`;
    if (!subscribing) return { kind, name: canonical, account, subaccountIndex, since };
    if (caller === null) return 'Please log in first: {"op": "login", "token": <JWT of POST /auth/login>}';
    const allowed = ports.delegations.authorizeCaller(caller, account, subaccountIndex, 'read');
    if (!allowed.ok) return codeFailure(allowed).body;
    return { kind, name: canonical, account, subaccountIndex, since };
  }
  if (since !== undefined) return `since applies to account channels only, not ${name}`;
  if (kind !== 'book' && kind !== 'trades' && kind !== 'prices' && kind !== 'summary' && kind !== 'candles') {
    return `Unknown channel ${name}; channels: book.<symbol>, trades.<symbol>, candles.<symbol>.<interval>, prices.<symbol>, summary.<symbol>, account.<address>.<subaccountIndex>`;
  }
  const market = parts[1] === undefined ? undefined : findMarket(ports.markets, parts[1]);
  if (market === undefined) return failure(GatewayCode.SymbolNotFound).body;
  if (kind === 'candles') {
    const interval = parts.length === 3 ? intervalByName(parts[2]) : undefined;
    if (interval === undefined) return `Interval must be one of ${CANDLE_INTERVALS.map((i) => i.name).join(', ')}, got ${parts[2] ?? ''}`;
    return { kind, name: `candles.${market.symbol}.${interval.name}`, market, interval };
  }
  if (parts.length !== 2) return `Unknown channel ${name}`;
  return { kind, name: `${kind}.${market.symbol}`, market };
}
