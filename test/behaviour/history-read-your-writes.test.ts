/**
 * Read-your-writes with replies that wait for the journal only: an order's reply no longer
 * waits for its history to be written, so every route that reads history waits, before it
 * reads, until history holds what the journal had flushed when the request came (gateway
 * `historyRead`). Proven from the client's side, under load: other traders cross orders all
 * along, and each time a taker's order is acknowledged filled, the reads sent at once show it —
 * both orders filled in GET /account/orders, the fill in GET /account/fills, the trade in
 * GET /trades and in its minute's candle.
 *
 * In process: history is written a turn or more after the journal has flushed what it covers,
 * as the projection thread writes it (test/harness/in-thread-projections), so a reply comes
 * before its history does and every read depends on the wait. The load comes in rounds, one
 * order per background trader beside each iteration, so that no trader runs past the request
 * budget of a clock that stands still.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader, fundedTraders } from '../harness/traders.ts';

const SYMBOL = 'BTC-USD-PERP';
const ITERATIONS = 40;
/** Traders crossing orders in the background, each one order per iteration (bounded load). */
const BACKGROUND_PAIRS = 3;

test('a filled order acknowledged is at once in every history read, under load', async () => {
  const ex = await startInProcessExchange();
  const login = async () => {
    const [t] = await fundedTraders(ex, 1, '1000000');
    return t;
  };
  const [maker, taker] = [await login(), await login()];
  const background = await Promise.all(Array.from({ length: BACKGROUND_PAIRS * 2 }, login));

  // Sellers rest asks at 95,000, buyers take them immediate-or-cancel: the trades of the load
  // are all at 95,000 and the load never rests a bid, so the taker's sell below finds the
  // maker's bid and nothing else (a resting 95,000 bid would be the better price and take
  // part of it, leaving the maker's order open).
  const loadRound = () => Promise.all(background.map((t, i) => t.place({ price: '95000', quantity: i % 2 === 0 ? '0.001' : '-0.001', ioc: i % 2 === 0 })));

  const sub = (t: Trader) => `account=${t.address}&subaccountIndex=0`;
  for (let i = 0; i < ITERATIONS; i++) {
    const load = loadRound();
    // A price of its own per iteration, below the load's, so its trade and candle are told apart.
    const price = 90000 + i * 10;
    const rested = await maker.place({ price: String(price), quantity: '0.01' });
    assert.equal(rested.status, 200, rested.text);
    const filled = await taker.place({ price: String(price), quantity: '-0.01' });
    assert.equal(filled.status, 200, filled.text);
    const [takerOrder] = filled.json();
    assert.equal(takerOrder.status, 'filled');
    const makerId = rested.json()[0].orderId;

    const [takerFills, makerOrders, takerOrders, trades] = await Promise.all([
      taker.get(`/account/fills?${sub(taker)}&limit=5`),
      maker.get(`/account/orders?${sub(maker)}&status=filled&limit=5`),
      taker.get(`/account/orders?${sub(taker)}&status=filled&limit=5`),
      ex.request('GET', `/trades/${SYMBOL}?limit=1000`),
    ]);
    const at = `iteration ${i}`;
    assert.ok(takerFills.json().some((f: { orderId: string }) => f.orderId === takerOrder.orderId), `${at}: the taker's fill in GET /account/fills`);
    const ids = (reply: typeof makerOrders) => [...reply.json().bids, ...reply.json().asks].map((o: { orderId: string }) => o.orderId);
    assert.ok(ids(makerOrders).includes(makerId), `${at}: the maker's order filled in GET /account/orders`);
    assert.ok(ids(takerOrders).includes(takerOrder.orderId), `${at}: the taker's order filled in GET /account/orders`);
    const trade = trades.json().find((t: { price: string }) => Number(t.price) === price);
    assert.ok(trade !== undefined, `${at}: the trade in GET /trades`);
    const candles = (await ex.request('GET', `/candles/${SYMBOL}?interval=1m&limit=2`)).json();
    const minute = candles.find((c: { time: number }) => c.time === trade.time - (trade.time % 60));
    assert.ok(minute !== undefined && Number(minute.low) <= price, `${at}: the trade in its minute's candle`);
    await load;
  }
});
