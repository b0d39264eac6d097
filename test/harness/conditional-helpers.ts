/**
 * What the conditional-order tests share: orders of every type signed with viem exactly as a
 * client signs them (the types come from GET /config), the operator's index price (with no
 * Tick the mark is the index), the clock (a Tick at a chosen time through the sequencer), and
 * reads of orders and positions through the API.
 */
import assert from 'node:assert/strict';
import { CommandKind } from '../../src/app/commands.ts';
import type { Sequencer } from '../../src/sequencer/sequencer.ts';
import type { ApiClient, OrderFields, Reply, Trader } from './traders.ts';

/** What the helpers drive: test/e2e/harness's exchange or the in-process one (test/harness/in-process-exchange). */
export interface TestExchange extends ApiClient {
  exchange: { sequencer: Pick<Sequencer, 'submit'> };
  /** The exchange's clock (ms). */
  now(): number;
}

export const BTC = 'BTC-USD-PERP';

/** An order of any type, as the tests write it: the harness's fields with the type named. */
export type ConditionalOrder = OrderFields & { orderType: string };

/** POST /account/order with one signed order of any type. */
export async function submit(trader: Trader, o: ConditionalOrder): Promise<Reply> {
  return trader.send('POST', '/account/order', await trader.signedOrder(o));
}

/** POST /account/orders with a batch of signed orders. */
export async function submitBatch(trader: Trader, orders: ConditionalOrder[]): Promise<Reply> {
  const bodies = [];
  for (const o of orders) bodies.push(await trader.signedOrder(o));
  return trader.send('POST', '/account/orders', { orders: bodies });
}

/** Sets the index price through the operator API; with no Tick sampling the book, the mark follows it exactly. */
export async function setMark(ex: TestExchange, price: string, symbol = BTC): Promise<void> {
  const r = await ex.operator('POST', '/operator/index-price', { symbol, price });
  assert.equal(r.status, 200, r.text);
}

/** Runs the clock to `time` (ms): expiry, funding samples, TWAP children due. */
export async function tick(ex: TestExchange, time: number): Promise<void> {
  const outcome = await ex.exchange.sequencer.submit({ kind: CommandKind.Tick, time });
  assert.equal(outcome.result.code, 0);
}

export async function order(trader: Trader, orderId: string): Promise<any> {
  const r = await trader.get(`/account/order?orderId=${orderId}`);
  assert.equal(r.status, 200, r.text);
  return r.json();
}

/**
 * A TP/SL pair after one leg fired: that leg filled with `settled`, the other cancelled as
 * `ocoTriggered`. Returns the fired leg for further checks.
 */
export async function pairFired(trader: Trader, firedId: string, otherId: string, settled: string): Promise<any> {
  const fired = await order(trader, firedId);
  assert.equal(fired.status, 'filled');
  assert.equal(fired.settled, settled);
  const other = await order(trader, otherId);
  assert.equal(other.status, 'cancelled');
  assert.equal(other.reason, 'ocoTriggered');
  return fired;
}

/** The exchange's and books' state hashes and its invariant check, from the operator API. */
export async function stateHash(ex: TestExchange): Promise<{ exchange: string; books: unknown; problem: string | null }> {
  const r = await ex.operator('GET', '/operator/state-hash');
  assert.equal(r.status, 200, r.text);
  const { exchange, books, problem } = r.json();
  return { exchange, books, problem };
}

/** The trader's position in BTC as a decimal string ('0' when flat). */
export async function position(trader: Trader): Promise<string> {
  const r = await trader.get(`/account/positions?account=${trader.address}&subaccountIndex=0`);
  assert.equal(r.status, 200, r.text);
  const p = r.json().positions.find((x: any) => x.symbol === BTC);
  return p === undefined ? '0' : p.quantity;
}

/** Orders of the trader with `status` (open, active, filled, closed), ids ascending. */
export async function listed(trader: Trader, status: string): Promise<any[]> {
  const r = await trader.get(`/account/orders?account=${trader.address}&subaccountIndex=0&status=${status}`);
  assert.equal(r.status, 200, r.text);
  const list = r.json();
  return [...list.bids, ...list.asks].sort((a: any, b: any) => (a.orderId < b.orderId ? -1 : 1));
}

/** Public trades of BTC, oldest first. */
export async function trades(ex: TestExchange): Promise<any[]> {
  return (await ex.request('GET', `/trades/${BTC}`)).json();
}

/** `long` buys `quantity` from `short` at `price`: both hold a position afterwards. */
export async function openPosition(long: Trader, short: Trader, quantity: string, price: string): Promise<void> {
  const ask = await submit(short, { orderType: 'limit', price, quantity: `-${quantity}` });
  assert.equal(ask.status, 200, ask.text);
  const bid = await submit(long, { orderType: 'limit', price, quantity });
  assert.equal(bid.status, 200, bid.text);
  assert.equal(bid.json()[0].status, 'filled');
}

/**
 * Waits until the market threads have handled every book command sent so far — including those
 * a book event caused (an iceberg's next child): a Tick at the current time goes through every
 * market after them, and its events come back before its reply.
 */
export async function caughtUp(ex: TestExchange): Promise<void> {
  await tick(ex, ex.now());
}

/** The book's side as [price, quantity] pairs. */
export async function bookSide(ex: TestExchange, side: 'bids' | 'asks'): Promise<string[][]> {
  const book = (await ex.request('GET', `/book/${BTC}?depth=5`)).json();
  return book[side].map((l: any) => [l.price, l.quantity]);
}
