/**
 * @module bench/load/generator
 *
 * The load generator of `npm run load` (./main) and of bench:http, built on the client
 * (src/client) as a trading firm's would be, in steps a caller can take one by one:
 *
 * 1. `openAccounts`: accounts that log in and take faucet funds (or operator deposits).
 * 2. `presignCrossing`: orders signed before the clock starts (client `signOrder`: the published
 *    rules, the client's nonces), with viem (`signer: 'viem'`, any client's way) or with
 *    libsecp256k1 (`'native'`, ./native-signer: thousands a second), which `openAccounts` first
 *    proves signs byte for byte as viem does.
 * 3. `stageOrders` then `send()`: the orders sent by `concurrency` workers as fast as the replies
 *    come, each reply timed; by `fetch` through the client (`sender: 'fetch'`), or by autocannon
 *    in a child process (an `Autocannon` from ./autocannon: far less CPU per request, which
 *    matters when the generator shares 2 cores with the exchange). Staging does what must not be
 *    timed (fresh tokens, the bodies file).
 * 4. `readBack`: every acknowledged order read back (GET /account/order), so the report counts
 *    the exchange's own acknowledgement of each order, not only the 200s.
 * `runLoad` runs the four against a URL and reports.
 *
 * The orders: crossing pairs at one price (a sell, then a buy of the same size), spread over
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
 * May import: src/client, viem/accounts, ./native-signer, ./autocannon.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient, ExchangeError, type Market, type SignedOrder } from '../../src/client/index.ts';
import { forkAutocannon, loadResult, writeBodies, type Autocannon, type LoadResult } from './autocannon.ts';
import { checkAgainstViem, nativeSigner, signerBackend } from './native-signer.ts';

export type SignerKind = 'viem' | 'native';
export type SenderKind = 'fetch' | 'autocannon';

export interface LoadOptions {
  url: string;
  orders: number;
  accounts: number;
  concurrency: number;
  symbol: string;
  /** `faucet` (testnet, as users fund) or `operator` (deposits with the operator key). */
  funding: 'faucet' | 'operator';
  operatorKey?: string;
  signer: SignerKind;
  sender: SenderKind;
  /** Progress lines (setup and signing), not the report. */
  log?: (line: string) => void;
}

export interface LoadReport {
  orders: number;
  accounts: number;
  concurrency: number;
  symbol: string;
  price: string;
  /** `native` when libsecp256k1 signed (`noble` where its binding does not load), else `viem`. */
  signer: string;
  sender: SenderKind;
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

export interface AccountOptions {
  url: string;
  count: number;
  funding: 'faucet' | 'operator';
  /** An operator deposit's amount (default 1,000,000 USD); the faucet gives what it gives. */
  amount?: string;
  operatorKey?: string;
  signer: SignerKind;
  log?: (line: string) => void;
}

/**
 * `count` new accounts, logged in and funded, 8 at a time under the per-address budget. With the
 * native signer, first proves on a sample order and login message that it signs as viem does.
 */
export async function openAccounts(options: AccountOptions): Promise<ExchangeClient[]> {
  const started = performance.now();
  const keys = Array.from({ length: options.count }, () => generatePrivateKey());
  if (options.signer === 'native') {
    const { markets } = await new ExchangeClient({ url: options.url }).config();
    await checkAgainstViem(options.url, keys[0], { symbol: markets[0].symbol, price: markets[0].tickSize, quantity: `-${markets[0].minSize}`, nonce: Date.now() * 1000 });
  }
  const operator = new ExchangeClient({ url: options.url, operatorKey: options.operatorKey });
  const clients = keys.map((key) =>
    options.signer === 'native'
      ? new ExchangeClient({ url: options.url, signer: nativeSigner(key), operatorKey: options.operatorKey })
      : new ExchangeClient({ url: options.url, wallet: privateKeyToAccount(key), operatorKey: options.operatorKey }),
  );
  await pool(clients, 8, async (client) => {
    await withinBudget(() => client.login());
    if (options.funding === 'faucet') await withinBudget(() => client.faucet());
    else await withinBudget(() => operator.deposit({ account: client.address, amount: options.amount ?? '1000000' }));
    // Each client fetches GET /config once, at its first signature: here, inside the budget the
    // logins spent from this one source address, not at presigning, where a 429 would end the run.
    await withinBudget(() => client.config());
  });
  options.log?.(`${options.count} accounts logged in and funded (${options.funding}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return clients;
}

/** A signed order and the client (the account) that sends it. */
export interface Presigned {
  client: ExchangeClient;
  body: SignedOrder;
}

/**
 * `count` crossing orders at `price`: order i belongs to pair i >> 1, a sell of `quantity` by an
 * even account, then a buy of it by the odd account beside it, the pairs rotating over the
 * accounts (half the orders rest, half fill them). Nonces are taken in order, per account.
 */
export async function presignCrossing(clients: readonly ExchangeClient[], terms: { symbol: string; price: string; quantity: string }, count: number): Promise<Presigned[]> {
  const pairs = clients.length >> 1;
  if (pairs === 0) throw new Error('crossing orders need at least 2 accounts');
  const orders: Presigned[] = [];
  for (let i = 0; i < count; i++) {
    const client = clients[2 * ((i >> 1) % pairs) + (i & 1)];
    orders.push({ client, body: await client.signOrder({ symbol: terms.symbol, price: terms.price, quantity: i % 2 === 0 ? `-${terms.quantity}` : terms.quantity }) });
  }
  return orders;
}

/** Orders ready to go (`send()`: the measured phase); `dispose()` removes what staging wrote. */
export interface Staged {
  send(): Promise<LoadResult>;
  dispose(): void;
}

/**
 * Stages `orders` to be sent, each once, from `concurrency` workers: every account's token fresh
 * for the run, and for autocannon the bodies file written (autocannon 9 builds exactly one request
 * per response, so N bodies make N requests). `LoadResult.orderIds[i]` is then order i's id if
 * the exchange acknowledged it (200). `maxSeconds` (autocannon): stop sending after that long.
 */
export async function stageOrders(orders: readonly Presigned[], how: { url: string; sender: 'fetch' | Autocannon; concurrency: number; maxSeconds?: number }): Promise<Staged> {
  const tokens = new Map<ExchangeClient, string>();
  for (const { client } of orders) if (!tokens.has(client)) tokens.set(client, await client.token());
  if (how.sender !== 'fetch') {
    const cannon = how.sender;
    const file = writeBodies(orders.map(({ client, body }) => [tokens.get(client)!, JSON.stringify(body)] as const));
    return {
      send: () => cannon.run({ kind: 'post', url: how.url, path: '/account/order', connections: how.concurrency, bodiesFile: file.path, maxSeconds: how.maxSeconds }),
      dispose: file.remove,
    };
  }
  return { send: () => sendByFetch(orders, how.concurrency), dispose: () => {} };
}

/** The `fetch` sender: each order placed through its client, `concurrency` at a time. */
async function sendByFetch(orders: readonly Presigned[], concurrency: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  const orderIds: (string | null)[] = orders.map(() => null);
  let firstRefusal: string | null = null;
  let errors = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await pool(orders, concurrency, async ({ client, body }, i) => {
    const sent = performance.now();
    try {
      const placed = await client.placeOrder(body);
      latencies.push(performance.now() - sent);
      statusCodes['200'] = (statusCodes['200'] ?? 0) + 1;
      orderIds[i] = placed.orderId;
    } catch (error) {
      if (!(error instanceof ExchangeError)) throw error;
      if (error.status === 0) errors++;
      else statusCodes[error.status] = (statusCodes[error.status] ?? 0) + 1;
      firstRefusal ??= `${error.status} ${error.message}`;
    }
  });
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return loadResult({ latencies, seconds, statusCodes, errors, timeouts: 0, firstRefusal, cpu: used, orderIds });
}

/**
 * The exchange's own word on each acknowledged order (`orderIds[i]` of `orders[i]`): shown
 * under its id with the terms sent and not rejected. Read `concurrency` at a time.
 */
/** What `readBack` compares of a sent order: its client and four fields, not the signed body. */
export interface SentOrder {
  client: ExchangeClient;
  body: Pick<SignedOrder, 'symbol' | 'quantity' | 'price' | 'nonce'>;
}

/**
 * The orders as `readBack` needs them, so that a bench running the exchange in its own process
 * can drop the signed bodies once they are sent: tens of thousands of them (about 1 KB each)
 * kept to the end are the exchange's heap to mark at every mark-compact, not the exchange's.
 */
export function sentOrders(orders: readonly Presigned[]): SentOrder[] {
  return orders.map(({ client, body }) => ({ client, body: { symbol: body.symbol, quantity: body.quantity, price: body.price, nonce: body.nonce } }));
}

export async function readBack(orders: readonly SentOrder[], orderIds: readonly (string | null)[], concurrency: number): Promise<{ readBack: number; mismatches: string[] }> {
  const acknowledged = orders.flatMap((order, i) => (orderIds[i] === null || orderIds[i] === undefined ? [] : [{ ...order, orderId: orderIds[i] }]));
  let count = 0;
  const mismatches: string[] = [];
  await pool(acknowledged, concurrency, async ({ client, body, orderId }) => {
    try {
      const order = await withinBudget(() => client.order({ orderId }));
      const same = order.symbol === body.symbol && order.quantity === body.quantity && order.price === body.price && order.nonce === body.nonce && order.status !== 'rejected';
      if (same) count++;
      else mismatches.push(`${orderId}: shown as ${order.quantity} @ ${order.price} ${order.status}, sent ${body.quantity} @ ${body.price}`);
    } catch (error) {
      mismatches.push(`${orderId}: ${(error as Error).message}`);
    }
  });
  return { readBack: count, mismatches };
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const log = options.log ?? (() => {});
  const probe = new ExchangeClient({ url: options.url });
  const config = await probe.config();
  const market: Market | undefined = config.markets.find((m) => m.symbol === options.symbol);
  if (market === undefined) throw new Error(`no market ${options.symbol}: one of ${config.markets.map((m) => m.symbol).join(', ')}`);
  const { prices } = await probe.prices({ symbol: market.symbol });
  const price = prices[0].indexPrice ?? prices[0].markPrice;
  if (price === null) throw new Error(`${market.symbol} has no price yet`);

  const clients = await openAccounts({ url: options.url, count: options.accounts, funding: options.funding, operatorKey: options.operatorKey, signer: options.signer, log });
  const cannon = options.sender === 'autocannon' ? forkAutocannon() : undefined;
  try {
    const signStart = performance.now();
    const orders = await presignCrossing(clients, { symbol: market.symbol, price, quantity: market.minSize }, options.orders);
    const signSeconds = (performance.now() - signStart) / 1000;
    const signer = options.signer === 'native' ? signerBackend : 'viem';
    log(`${orders.length} orders signed (${signer}) in ${signSeconds.toFixed(1)} s (${Math.round(orders.length / signSeconds)}/s), before the clock starts`);

    const staged = await stageOrders(orders, { url: options.url, sender: cannon ?? 'fetch', concurrency: options.concurrency });
    let sent: LoadResult;
    try {
      sent = await staged.send();
    } finally {
      staged.dispose();
    }
    const back = await readBack(orders, sent.orderIds, options.concurrency);
    const failed = sent.errors + sent.timeouts;
    return {
      orders: options.orders,
      accounts: options.accounts,
      concurrency: options.concurrency,
      symbol: market.symbol,
      price,
      signer,
      sender: options.sender,
      signing: { seconds: signSeconds, rate: orders.length / signSeconds },
      seconds: sent.seconds,
      rate: sent.rate,
      latencyMs: { p50: sent.p50, p90: sent.p90, p99: sent.p99, max: sent.max },
      statuses: failed > 0 ? { ...sent.statusCodes, '0': failed } : sent.statusCodes,
      firstRefusal: sent.firstRefusal,
      ...back,
    };
  } finally {
    cannon?.close();
  }
}
