/**
 * @module bench/load/generator
 *
 * The load generator of `npm run load` (./main), built on the client (src/client) as a trading
 * firm's would be: accounts that log in and take faucet funds (or operator deposits), orders
 * signed before the clock starts (client `signOrder`: viem, the published rules, the client's
 * nonces), then sent by `concurrency` workers as fast as the replies come, each reply timed.
 * Afterwards every acknowledged order is read back (GET /account/order), so the report counts
 * the exchange's own acknowledgement of each order, not only the 200s.
 *
 * The orders: crossing pairs at one price (a sell of the minimum size, then a buy), spread over
 * the accounts in turn: half rest, half fill them, so the run exercises matching and settlement,
 * not only admission. Sellers (even accounts) and buyers (odd ones) are disjoint sets: with
 * `concurrency` orders in flight they arrive in any order, and a buy may meet any resting sell,
 * never one of its own account's (which self-trade prevention would cancel instead of filling).
 *
 * Budgets: 200 requests per second per account and per source address for public routes. Setup
 * (logins, faucet) is paced under the per-address one; the measured phase counts 429s as
 * refusals (more accounts spread the rate: about one account per 150 orders/s); the read-back
 * waits out a 429's Retry-After.
 *
 * May import: src/client, viem/accounts, ../report (percentile).
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient, ExchangeError, type SignedOrder } from '../../src/client/index.ts';
import { percentile } from '../report.ts';

export interface LoadOptions {
  url: string;
  orders: number;
  accounts: number;
  concurrency: number;
  symbol: string;
  /** `faucet` (testnet, as users fund) or `operator` (deposits with the operator key). */
  funding: 'faucet' | 'operator';
  operatorKey?: string;
  /** Progress lines (setup and signing), not the report. */
  log?: (line: string) => void;
}

export interface LoadReport {
  orders: number;
  accounts: number;
  concurrency: number;
  symbol: string;
  price: string;
  signing: { seconds: number; rate: number };
  seconds: number;
  /** 200s per second of the measured phase. */
  rate: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Replies by status (0: no reply, the connection failed). */
  statuses: Record<string, number>;
  /** The first refusal's text, to say why. */
  firstRefusal: string | null;
  /** Acknowledged (200) orders the exchange then showed under their id with the same terms. */
  readBack: number;
  /** Acknowledged orders it did not show, or showed otherwise (ids and why). */
  mismatches: string[];
}

/** Runs `work` over `items` with at most `parallel` at a time. */
async function pool<T>(items: readonly T[], parallel: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  }));
}

/** `send()` again after each 429's Retry-After. */
async function withinBudget<T>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof ExchangeError) || error.status !== 429) throw error;
      await new Promise((resolve) => setTimeout(resolve, (error.retryAfter ?? 1) * 1000));
    }
  }
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const log = options.log ?? (() => {});
  const probe = new ExchangeClient({ url: options.url, operatorKey: options.operatorKey });
  const config = await probe.config();
  const market = config.markets.find((m) => m.symbol === options.symbol);
  if (market === undefined) throw new Error(`no market ${options.symbol}: one of ${config.markets.map((m) => m.symbol).join(', ')}`);
  const { prices } = await probe.prices({ symbol: market.symbol });
  const price = prices[0].indexPrice ?? prices[0].markPrice;
  if (price === null) throw new Error(`${market.symbol} has no price yet`);

  // 1. Accounts, logged in and funded; a few at a time, under the per-address budget.
  const setup = performance.now();
  const clients = Array.from({ length: options.accounts }, () => new ExchangeClient({ url: options.url, wallet: privateKeyToAccount(generatePrivateKey()), operatorKey: options.operatorKey }));
  await pool(clients, 8, async (client) => {
    await withinBudget(() => client.login());
    if (options.funding === 'faucet') await withinBudget(() => client.faucet());
    else await withinBudget(() => probe.deposit({ account: client.address, amount: '1000000' }));
  });
  log(`${options.accounts} accounts logged in and funded (${options.funding}) in ${((performance.now() - setup) / 1000).toFixed(1)} s`);

  // 2. Every order signed before the clock starts: pair k is a sell by seller k, a buy by buyer k
  // (round robin over the even and the odd accounts).
  const signStart = performance.now();
  const bodies: SignedOrder[] = [];
  for (let i = 0; i < options.orders; i++) {
    const pairs = clients.length >> 1;
    const client = clients[2 * ((i >> 1) % pairs) + (i & 1)];
    bodies.push(await client.signOrder({ symbol: market.symbol, price, quantity: i % 2 === 0 ? `-${market.minSize}` : market.minSize }));
  }
  const signSeconds = (performance.now() - signStart) / 1000;
  log(`${options.orders} orders signed in ${signSeconds.toFixed(1)} s (${Math.round(options.orders / signSeconds)}/s), before the clock starts`);
  const owner = new Map(bodies.map((b) => [b, clients.find((c) => c.address === b.account.toLowerCase())!]));
  for (const c of clients) await c.token(); // tokens fresh for the whole run

  // 3. The measured phase.
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const acknowledged: { body: SignedOrder; orderId: string }[] = [];
  let firstRefusal: string | null = null;
  const start = performance.now();
  await pool(bodies, options.concurrency, async (body) => {
    const sent = performance.now();
    try {
      const placed = await owner.get(body)!.placeOrder(body);
      latencies.push(performance.now() - sent);
      statuses['200'] = (statuses['200'] ?? 0) + 1;
      acknowledged.push({ body, orderId: placed.orderId });
    } catch (error) {
      if (!(error instanceof ExchangeError)) throw error;
      statuses[error.status] = (statuses[error.status] ?? 0) + 1;
      firstRefusal ??= `${error.status} ${error.message}`;
    }
  });
  const seconds = (performance.now() - start) / 1000;

  // 4. The exchange's own word on each acknowledged order.
  let readBack = 0;
  const mismatches: string[] = [];
  await pool(acknowledged, options.concurrency, async ({ body, orderId }) => {
    try {
      const order = await withinBudget(() => owner.get(body)!.order({ orderId }));
      const same = order.symbol === body.symbol && order.quantity === body.quantity && order.price === body.price && order.nonce === body.nonce && order.status !== 'rejected';
      if (same) readBack++;
      else mismatches.push(`${orderId}: shown as ${order.quantity} @ ${order.price} ${order.status}, sent ${body.quantity} @ ${body.price}`);
    } catch (error) {
      mismatches.push(`${orderId}: ${(error as Error).message}`);
    }
  });

  return {
    orders: options.orders,
    accounts: options.accounts,
    concurrency: options.concurrency,
    symbol: market.symbol,
    price,
    signing: { seconds: signSeconds, rate: options.orders / signSeconds },
    seconds,
    rate: acknowledged.length / seconds,
    latencyMs: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99), max: percentile(latencies, 100) },
    statuses,
    firstRefusal,
    readBack,
    mismatches,
  };
}
