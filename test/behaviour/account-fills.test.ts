/**
 * GET /account/fills on the in-process exchange (test/harness/in-process-exchange): newest first
 * from the LMDB fills projection, filters, limits, texts. The fills are written into its history
 * by the test: their realized PnL and funding are ones no trade on an empty exchange makes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_KEY, ALICE } from '../auth/fixtures.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { marketNo, orderNo } from '../fixtures/ids.ts';
import { orderIdOf } from '../../src/engine/types.ts';

const ex = await startInProcessExchange();
const NOW = ex.now();
const alice = await new Trader(ex, ALICE_KEY).login();
await alice.fund('1000');
const owner = ex.exchange.sequencer.exchange.ledger.findOwner(ALICE, 0)!;

// Three BTC fills at NOW+1000, +2000, +3000 ms and one ETH fill at +2500.
ex.writeHistory((w) => {
  for (const [i, time] of [[1, NOW + 1000], [2, NOW + 2000], [3, NOW + 3000]] as const) {
    w.onFill({ owner, marketIndex: marketNo(0), seq: i, time, orderId: orderNo(i), price: 950_000 + i, quantity: i % 2 === 0 ? -10 : 10, realizedExposure: 0n, realizedFunding: 0n, realizedPnl: BigInt(i) * 500_000n, realizedPoints: 95_000_000n });
  }
  w.onFill({ owner, marketIndex: marketNo(1), seq: 1, time: NOW + 2500, orderId: orderIdOf(marketNo(1), 1), price: 350_000, quantity: 1000, realizedExposure: 0n, realizedFunding: -1n, realizedPnl: 0n, realizedPoints: 3_500_000_000n });
});

const base = `/account/fills?account=${ALICE}&subaccountIndex=0`;

test('fills come newest first with decimal strings and ms times', async () => {
  const res = await alice.get(base);
  assert.equal(res.status, 200, res.text);
  const fills = res.json();
  assert.deepEqual(fills.map((f: { time: number }) => f.time), [NOW + 3000, NOW + 2500, NOW + 2000, NOW + 1000]);
  assert.deepEqual(fills[0], {
    price: '95000.3', quantity: '0.001', symbol: 'BTC-USD-PERP', orderId: '0x0000000000000003',
    realizedExposure: '0', realizedFunding: '0', realizedPnl: '1.5', realizedPoints: '95', time: NOW + 3000,
  });
  assert.equal(fills[1].symbol, 'ETH-USD-PERP');
  assert.equal(fills[1].realizedFunding, '-0.000001');
  assert.equal(fills[2].quantity, '-0.001', 'a sell is negative');
});

test('symbol, from (on or after), to (before) and limit narrow the list', async () => {
  assert.deepEqual((await alice.get(`${base}&symbol=BTC-USD-PERP`)).json().map((f: { time: number }) => f.time), [NOW + 3000, NOW + 2000, NOW + 1000]);
  assert.deepEqual((await alice.get(`${base}&symbol=ETH`)).json().length, 1);
  assert.deepEqual((await alice.get(`${base}&from=${NOW + 2000}&to=${NOW + 3000}`)).json().map((f: { time: number }) => f.time), [NOW + 2500, NOW + 2000]);
  assert.deepEqual((await alice.get(`${base}&limit=1`)).json().map((f: { time: number }) => f.time), [NOW + 3000]);
  assert.deepEqual((await alice.get(`/account/fills?account=${ALICE}&subaccountIndex=3`)).json(), [], 'a subaccount never seen has no fills');
});

test('bad limit, window and symbol are refused with the spec texts', async () => {
  for (const limit of ['0', '5001', 'abc', '1.5', '-3']) {
    const res = await alice.get(`${base}&limit=${limit}`);
    assert.equal(res.status, 400, limit);
    assert.equal(res.text, `Limit must be between 1 and 5000, got ${limit}`);
  }
  assert.equal((await alice.get(`${base}&limit=5000`)).status, 200);
  const from = await alice.get(`${base}&from=-1`);
  assert.equal(from.status, 400);
  assert.equal(from.text, 'from must be an integer >= 0 (milliseconds), got -1');
  const symbol = await alice.get(`${base}&symbol=DOGE-USD-PERP`);
  assert.equal(symbol.status, 404);
  assert.equal(symbol.text, 'Symbol not found');
});
