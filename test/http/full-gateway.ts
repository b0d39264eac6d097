/**
 * The options of a full gateway — accounts, orders, the operator API with the testnet faucet,
 * operations, a replicated node's /cluster, the feeds' document — over ports that answer
 * nothing: what test/http/endpoints and route-query build their tables from. A test hands in
 * only what its requests reach (a clock, the token check, the probes' and /cluster's answers).
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import type { GatewayOptions } from '../../src/http/gateway.ts';
import { parseMarkets } from '../../src/config/market.ts';
import { PROFILES } from '../../src/config/profile.ts';

/** A port `why` says nothing reaches: any use of it throws that. */
export const unusedPort = (why: string): never => new Proxy({}, { get: () => { throw new Error(why); } }) as never;

const MARKETS = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));

export function fullGatewayOptions(why: string, given: Partial<Pick<GatewayOptions, 'clock' | 'operations' | 'cluster' | 'feedsDocument'>> & { tokens?: unknown; operatorKey?: string } = {}): GatewayOptions {
  const unused = unusedPort(why);
  return {
    host: '127.0.0.1',
    port: 0,
    clock: given.clock ?? (() => 0),
    logger: pino({ level: 'silent' }),
    marketData: { markets: MARKETS, profile: PROFILES.testnet, typedData: () => ({}) } as never,
    history: unused,
    prices: unused,
    accounts: { accounts: { delegations: unused }, writes: unused, auth: { login: { tokens: given.tokens ?? unused }, domain: unused, recover: unused }, fills: unused, transfers: unused } as never,
    orders: unused,
    operator: { port: unused, key: given.operatorKey ?? 'k'.repeat(32) },
    operations: given.operations ?? unused,
    cluster: given.cluster ?? unused,
    feedsDocument: given.feedsDocument ?? unused,
  };
}
