/**
 * The real pipeline (threads, LMDB journal, the gateway over HTTP) on a host clock the test steps
 * back an hour: while it runs, and between a stop and the next start on the same data directory
 * (a restart on a machine whose clock is behind the journal, as a standby's takeover). The
 * exchange's time (sequencer/exchange-time) goes on from where it was. Before, the whole API
 * answered 429 to the client's address for the hour (GET /time included), and after the restart
 * an order was cancelled an hour before it was created. test/behaviour/clock-step-back holds the
 * other consequences (an expired request accepted, a GTT order outliving its expiresAt, fills
 * listed out of order).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders, startTestExchange, tempDataDir, type Reply } from './harness.ts';

const HOUR = 3_600_000;

function answered(reply: Reply): any {
  assert.equal(reply.status, 200, `${reply.status} ${reply.text} (retry-after ${reply.headers.get('retry-after')})`);
  return reply.json();
}

test('the host clock stepped back an hour while the exchange runs: it answers as before, and its time goes on', { timeout: 60_000 }, async () => {
  let step = 0;
  const ex = await startTestExchange({ clock: () => Date.now() + step, tickMs: 200 });
  const [alice] = await fundedTraders(ex, 1, '100000');
  const [first] = answered(await alice.place({ price: '90000', quantity: '0.01' }));

  step = -HOUR;
  const { serverTime } = answered(await ex.request('GET', '/time'));
  assert.ok(serverTime >= first.createdAt, `GET /time is ${first.createdAt - serverTime} ms before the order placed just before`);
  const [second] = answered(await alice.place({ price: '89000', quantity: '0.01' }));
  assert.ok(second.createdAt >= first.createdAt, `the second order is dated ${first.createdAt - second.createdAt} ms before the first`);
});

test('restarted on a host whose clock is an hour behind the journal, the exchange goes on from the journal\'s time', { timeout: 60_000 }, async (t) => {
  const dataDir = tempDataDir(t, 'perp-clock-');
  let step = 0;
  const clock = () => Date.now() + step;
  const ex = await startTestExchange({ dataDir, clock });
  const [alice] = await fundedTraders(ex, 1, '100000');
  const [placed] = answered(await alice.place({ price: '90000', quantity: '0.01' }));
  await ex.stop();

  step = -HOUR;
  const again = await startTestExchange({ dataDir, clock });
  alice.ex = again;
  await alice.login();
  answered(await alice.send('DELETE', `/account/order?orderId=${placed.orderId}`));
  const order = answered(await alice.get(`/account/order?orderId=${placed.orderId}`));
  assert.equal(order.status, 'cancelled');
  assert.ok(order.updatedAt >= order.createdAt, `cancelled ${order.createdAt - order.updatedAt} ms before it was created`);
  assert.ok(answered(await again.request('GET', '/time')).serverTime >= order.updatedAt);
});
