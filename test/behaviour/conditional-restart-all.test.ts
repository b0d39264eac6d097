/**
 * Every conditional/algorithmic order type survives restarts in the middle of its life — first a
 * restart as after a kill (no shutdown snapshot: the journal is replayed), then a clean one (from
 * the shutdown snapshot) — and afterwards fires or places exactly once: never twice, never lost.
 *
 * One market, one mark, so the triggers are spread out and each fires on its own:
 *  - alice: long 0.1, a sell trailingStop 5 % (anchor moved 95000 → 100000 → 104000: trigger 98800);
 *  - dave:  long 0.1, a position-attached pair TP 110000 / SL 85000 (the SL fires);
 *  - erin:  a parent bid 0.1 at 90000 filled 0.04, its pair TP 108000 / SL 88000 armed with 0.04 (the TP fires);
 *  - carol: a TWAP of 4 × 0.01 bids at 70000 every minute (2 placed, 2 pending at the first restart);
 *  - lp:    a bid of 1 at 94000 that every market-like stop leg sells into;
 *  - frank: an iceberg of ETH asks at 3500 (-1, -1, -0.5): the first child filled, the second showing.
 * The iceberg is in ETH and no BTC bid is above the index at a Tick, so that BTC's mark is exactly
 * the index (a Tick samples the book: with both sides and a last trade the mark is their median).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders, Trader } from '../harness/traders.ts';
import { bookSide, listed, openPosition, order, pairFired, stateHash, position, setMark, submit, submitBatch, tick, trades, type ConditionalOrder, type TestExchange } from '../harness/conditional-helpers.ts';

const MINUTE = 60_000;
const ETH = 'ETH-USD-PERP';

async function ethAsks(ex: TestExchange): Promise<string[][]> {
  const book = (await ex.request('GET', `/book/${ETH}?depth=5`)).json();
  return book.asks.map((l: any) => [l.price, l.quantity]);
}

async function ethPosition(trader: Trader): Promise<string> {
  const r = await trader.get(`/account/positions?account=${trader.address}&subaccountIndex=0`);
  assert.equal(r.status, 200, r.text);
  return r.json().positions.find((x: any) => x.symbol === ETH)?.quantity ?? '0';
}

async function ethTrades(ex: TestExchange): Promise<number> {
  return (await ex.request('GET', `/trades/${ETH}`)).json().length;
}
const sell = (orderType: string, triggerPrice: string, quantity: string, parentOrderId: string | null = null): ConditionalOrder => ({
  orderType,
  price: '0.1',
  quantity,
  triggerPrice,
  parentOrderId,
  ioc: true,
  reduceOnly: true,
});

test('every conditional and algorithmic order type survives a journal-replay restart and a snapshot restart, then fires exactly once', async () => {
  let ex = await startInProcessExchange();
  const traders = await fundedTraders(ex, 8, '100000');
  const [alice, bob, carol, dave, erin, frank, gina, lp] = traders;
  // The exchange's clock only moves forward: Ticks never go back to the wall clock once a TWAP ran it ahead.
  let clock = 0;
  const runClock = async (time: number) => {
    clock = Math.max(clock, time);
    await tick(ex, clock);
  };
  const caughtUp = () => runClock(ex.now());

  await setMark(ex, '95000');
  await setMark(ex, '3500', ETH);
  await openPosition(alice, bob, '0.1', '95000');
  await openPosition(dave, bob, '0.1', '95000');

  // Trailing stop, anchored at 95000 when placed.
  const placedTrailing = await submit(alice, { orderType: 'trailingStop', price: '0.1', quantity: '-0.1', trailingPercent: '0.05', ioc: true, reduceOnly: true });
  assert.equal(placedTrailing.status, 200, placedTrailing.text);
  const [trailing] = placedTrailing.json();

  // Position-attached TP/SL.
  const placedOco = await submitBatch(dave, [sell('takeProfit', '110000', '-0.1'), sell('stopLoss', '85000', '-0.1')]);
  assert.equal(placedOco.status, 200, placedOco.text);
  const [daveTp, daveSl] = placedOco.json().orders;
  assert.equal(daveTp.ocoGroupId, daveSl.ocoGroupId);

  // Parent-attached TP/SL, armed by a partial fill of the parent.
  const [parent] = (await submit(erin, { orderType: 'limit', price: '90000', quantity: '0.1' })).json();
  assert.equal(parent.status, 'new');
  const placedPair = await submitBatch(erin, [sell('takeProfit', '108000', '-0.1', parent.orderId), sell('stopLoss', '88000', '-0.1', parent.orderId)]);
  assert.equal(placedPair.status, 200, placedPair.text);
  const [erinTp, erinSl] = placedPair.json().orders;
  assert.equal((await submit(bob, { orderType: 'limit', price: '90000', quantity: '-0.04' })).json()[0].status, 'filled');
  assert.equal((await order(erin, parent.orderId)).status, 'partiallyFilled');
  assert.equal(await position(erin), '0.04');

  // Liquidity for every market-like stop leg: the best bid, yet below the index.
  assert.equal((await submit(lp, { orderType: 'limit', price: '94000', quantity: '1' })).status, 200);

  // TWAP: 4 children, the second placed a minute later; two pending.
  const placedTwap = await submitBatch(carol, Array.from({ length: 4 }, () => ({ orderType: 'twap', price: '70000', quantity: '0.01', period: MINUTE })));
  assert.equal(placedTwap.status, 200, placedTwap.text);
  const twap = placedTwap.json().orders;
  const t0 = twap[0].createdAt;

  // Iceberg: the first child fully filled, the second on the book, the third hidden.
  const placedIceberg = await submitBatch(frank, ['-1', '-1', '-0.5'].map((quantity) => ({ orderType: 'iceberg', price: '3500', quantity, symbol: ETH })));
  assert.equal(placedIceberg.status, 200, placedIceberg.text);
  const iceberg = placedIceberg.json().orders;
  assert.equal((await submit(gina, { orderType: 'limit', price: '3500', quantity: '1', symbol: ETH })).json()[0].status, 'filled');
  await caughtUp();

  // The trailing stop's anchor moves up to 100000 (trigger 95000) and the mark falls back, so the
  // anchor is not the mark a rebuild would see; a TWAP child comes due.
  await setMark(ex, '100000');
  await setMark(ex, '97000');
  await runClock(t0 + MINUTE);

  const all: [Trader, string][] = [
    [alice, trailing.orderId],
    [dave, daveTp.orderId],
    [dave, daveSl.orderId],
    [erin, parent.orderId],
    [erin, erinTp.orderId],
    [erin, erinSl.orderId],
    ...twap.map((c: any): [Trader, string] => [carol, c.orderId]),
    ...iceberg.map((c: any): [Trader, string] => [frank, c.orderId]),
  ];
  const statuses = async () => Promise.all(all.map(async ([tr, id]) => (await order(tr, id)).status));
  const orders = async () => Promise.all(all.map(([tr, id]) => order(tr, id)));
  const active = async () => Promise.all([alice, dave, erin, carol, frank].map((tr) => listed(tr, 'active')));
  const positions = async () => Promise.all(traders.map(async (tr) => [await position(tr), await ethPosition(tr)]));

  assert.deepEqual(await statuses(), [
    'untriggered', // trailing
    'untriggered', // dave TP
    'untriggered', // dave SL
    'partiallyFilled', // erin parent
    'untriggered', // erin TP (armed)
    'untriggered', // erin SL (armed)
    'new', 'new', 'untriggered', 'untriggered', // TWAP
    'filled', 'new', 'untriggered', // iceberg
  ]);
  /** The books and trades while the ETH ask rests and three BTC trades are done, with the bids `bids`. */
  const assertMidLife = async (bids: string[][]) => {
    assert.deepEqual(await ethAsks(ex), [['3500', '1']]);
    assert.deepEqual(await bookSide(ex, 'bids'), bids);
    assert.equal((await trades(ex)).length, 3);
    assert.equal(await ethTrades(ex), 1);
  };
  await assertMidLife([['94000', '1'], ['90000', '0.06'], ['70000', '0.02']]);

  /** What a restart must bring back: every order, the active lists, the positions, the state hash (whose invariants hold). */
  const capture = async () => ({ orders: await orders(), active: await active(), positions: await positions(), hash: await stateHash(ex) });
  let before!: Awaited<ReturnType<typeof capture>>;
  const remember = async () => {
    before = await capture();
    assert.equal(before.hash.problem, null);
  };
  await remember();

  const restart = async (snapshot: boolean) => {
    ex = await ex.restart({ snapshot });
    // From the shutdown snapshot nothing is left to replay; without one, the journal after the newest snapshot is.
    assert.equal(ex.exchange.recovery.commands + ex.exchange.recovery.events === 0, snapshot);
    for (const tr of traders) tr.ex = ex;
    assert.deepEqual(await stateHash(ex), before.hash);
    assert.deepEqual(await orders(), before.orders);
    assert.deepEqual(await active(), before.active);
    assert.deepEqual(await positions(), before.positions);
  };

  // 1. As after a kill: no shutdown snapshot, the journal is replayed.
  await restart(false);
  await assertMidLife([['94000', '1'], ['90000', '0.06'], ['70000', '0.02']]);

  // Still in the middle of their lives: the anchor moves on to 104000 (trigger 98800), the mark falls
  // back to 100000, the third TWAP child comes due.
  await setMark(ex, '104000');
  await setMark(ex, '100000');
  await runClock(t0 + 2 * MINUTE);
  assert.deepEqual((await statuses()).slice(6, 10), ['new', 'new', 'new', 'untriggered']);
  await assertMidLife([['94000', '1'], ['90000', '0.06'], ['70000', '0.03']]);
  await remember();

  // 2. A clean stop: from the shutdown snapshot.
  await restart(true);
  await assertMidLife([['94000', '1'], ['90000', '0.06'], ['70000', '0.03']]);

  // Drive each to completion.
  // Trailing stop: anchored at 104000, so 98800.1 does not fire it and 98800 does, once.
  await setMark(ex, '98800.1');
  assert.equal((await order(alice, trailing.orderId)).status, 'untriggered');
  assert.equal((await trades(ex)).length, 3);
  assert.equal(await ethTrades(ex), 1);
  await setMark(ex, '98800');
  const trailed = await order(alice, trailing.orderId);
  assert.equal(trailed.status, 'filled');
  assert.equal(trailed.settled, '0.1');
  assert.equal(await position(alice), '0');
  assert.equal((await trades(ex)).length, 4);

  // Parent-attached pair: the TP fires with the filled size, the SL is cancelled.
  await setMark(ex, '108000');
  const erinTook = await pairFired(erin, erinTp.orderId, erinSl.orderId, '0.04');
  assert.equal(erinTook.quantity, '-0.04');
  assert.equal(await position(erin), '0');
  assert.equal((await trades(ex)).length, 5);

  // Position-attached pair: the SL fires, the TP is cancelled.
  await setMark(ex, '85000');
  await pairFired(dave, daveSl.orderId, daveTp.orderId, '0.1');
  assert.equal(await position(dave), '0');
  assert.equal((await trades(ex)).length, 6);

  // Nothing fires again whichever way the mark goes.
  for (const mark of ['110000', '120000', '80000', '90000', '130000', '95000']) await setMark(ex, mark);
  assert.equal((await trades(ex)).length, 6);
  assert.equal(await position(lp), '0.24');

  // TWAP: the last child is placed once, on time; nothing more afterwards.
  await runClock(t0 + 3 * MINUTE - 1);
  assert.equal((await order(carol, twap[3].orderId)).status, 'untriggered');
  await runClock(t0 + 3 * MINUTE);
  assert.deepEqual((await statuses()).slice(6, 10), ['new', 'new', 'new', 'new']);
  await runClock(t0 + 10 * MINUTE);
  assert.deepEqual(await bookSide(ex, 'bids'), [['94000', '0.76'], ['90000', '0.06'], ['70000', '0.04']]);

  // Iceberg: the second child fills, the third shows, then fills; the book is empty after.
  assert.equal((await submit(gina, { orderType: 'limit', price: '3500', quantity: '1', symbol: ETH })).json()[0].status, 'filled');
  await caughtUp();
  assert.deepEqual((await statuses()).slice(10), ['filled', 'filled', 'new']);
  assert.deepEqual(await ethAsks(ex), [['3500', '0.5']]);
  assert.equal((await submit(gina, { orderType: 'limit', price: '3500', quantity: '0.5', symbol: ETH })).json()[0].status, 'filled');
  await caughtUp();
  assert.deepEqual((await statuses()).slice(10), ['filled', 'filled', 'filled']);
  assert.deepEqual(await ethAsks(ex), []);
  assert.equal(await ethPosition(frank), '-2.5');
  assert.equal(await ethPosition(gina), '2.5');
  assert.equal(await ethTrades(ex), 3);
  assert.equal((await trades(ex)).length, 6);

  // All done: only the resting TWAP children and erin's parent remainder are left.
  assert.deepEqual((await listed(alice, 'active')).length, 0);
  assert.deepEqual((await listed(dave, 'active')).length, 0);
  assert.deepEqual((await listed(frank, 'active')).length, 0);
  assert.deepEqual((await listed(erin, 'active')).map((o: any) => o.orderId), [parent.orderId]);
  assert.deepEqual((await listed(carol, 'active')).map((o: any) => o.orderId), twap.map((c: any) => c.orderId));

  // And one more kill: replaying what came after the snapshot fires nothing a second time.
  await remember();
  await restart(false);
  assert.equal((await trades(ex)).length, 6);
  assert.equal(await ethTrades(ex), 3);
  for (const mark of ['80000', '140000', '95000']) await setMark(ex, mark);
  await runClock(t0 + 20 * MINUTE);
  assert.equal((await trades(ex)).length, 6);
  assert.equal(await ethTrades(ex), 3);
  assert.deepEqual(await ethAsks(ex), []);
  assert.deepEqual(await bookSide(ex, 'bids'), [['94000', '0.76'], ['90000', '0.06'], ['70000', '0.04']]);
  assert.deepEqual(await orders(), before.orders);
  assert.equal((await stateHash(ex)).problem, null);
});
