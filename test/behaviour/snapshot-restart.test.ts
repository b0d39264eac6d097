import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';

test('a restart loads the newest snapshot and replays only the journal after it, to the same state', async () => {
  const first = await startInProcessExchange();
  const [alice, bob] = await fundedTraders(first, 2, '100000');
  const resting = (await alice.place({ price: '95000', quantity: '0.5', clientId: 'before-snapshot' })).json()[0];
  await bob.place({ price: '95000', quantity: '-0.1' });

  const snap = await first.operator('POST', '/operator/snapshot');
  assert.equal(snap.status, 200, snap.text);
  const snapshotSeq = snap.json().seq;
  assert.ok(snapshotSeq > 0);

  // Work after the snapshot: only this is replayed at the next start.
  const after = (await alice.place({ price: '94000', quantity: '0.2', clientId: 'after-snapshot' })).json()[0];
  await bob.place({ price: '94000', quantity: '-0.05' });
  const liveState = (await first.operator('GET', '/operator/state-hash')).json();
  const candlesBefore = (await first.request('GET', '/candles/BTC-USD-PERP?interval=1m')).json();
  const tradesBefore = (await first.request('GET', '/trades/BTC-USD-PERP')).json();
  const statsBefore = (await alice.get(`/account/stats?account=${alice.address}&subaccountIndex=0`)).json();
  // No shutdown snapshot, as after a crash: the next start must use the earlier one.
  const second = await first.restart({ snapshot: false });
  assert.equal(second.exchange.recovery.snapshotSeq, snapshotSeq);
  assert.ok(second.exchange.recovery.commands >= 2, 'the orders after the snapshot were replayed');
  assert.ok(second.exchange.recovery.events > 0);
  alice.ex = second;
  bob.ex = second;
  const state = (await second.operator('GET', '/operator/state-hash')).json();
  assert.equal(state.exchange, liveState.exchange);
  assert.deepEqual(state.books, liveState.books);
  assert.equal(state.problem, null);

  // History is not double-counted: candles and trades are what they were.
  assert.deepEqual((await second.request('GET', '/candles/BTC-USD-PERP?interval=1m')).json(), candlesBefore);
  assert.deepEqual((await second.request('GET', '/trades/BTC-USD-PERP')).json(), tradesBefore);
  assert.deepEqual((await alice.get(`/account/stats?account=${alice.address}&subaccountIndex=0`)).json(), statsBefore);

  for (const order of [resting, after]) {
    const r = await alice.get(`/account/order?orderId=${order.orderId}`);
    assert.equal(r.status, 200);
    assert.equal(r.json().clientId, order.clientId);
  }
  // The nonce windows came back too: the same signed order is refused as a replay.
  const body = await alice.signedOrder({ price: '90000', quantity: '0.01' });
  assert.equal((await second.request('POST', '/account/order', body, alice.auth())).status, 200);
  const third = await second.restart();
  const replay = await third.request('POST', '/account/order', body, alice.auth());
  assert.equal(replay.status, 409);
  assert.equal(replay.text, 'Nonce already used');
});
