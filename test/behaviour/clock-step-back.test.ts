/**
 * The host's clock steps back — an NTP step while running, a restart on a machine whose clock
 * is behind the journal's last record — under the in-process exchange (test/harness/
 * in-process-exchange: `stepHostClock` moves the host's clock alone, `advance` is the time that
 * passes). What a user sees must not go back with it (sequencer/exchange-time): before the
 * exchange's time ran on from the journal's, each of these held.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange, type InProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders, type Trader } from '../harness/traders.ts';
import { BTC, order, setMark, submitBatch } from '../harness/conditional-helpers.ts';
import { assertError } from '../harness/api-helpers.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;

async function exchangeWithTraders(tickMs = 60_000): Promise<{ ex: InProcessExchange; alice: Trader; bob: Trader }> {
  const ex = await startInProcessExchange({ tickMs });
  const [alice, bob] = await fundedTraders(ex, 2, '100000');
  await setMark(ex, '95000');
  return { ex, alice, bob };
}

/** Alice's bid of 0.01 BTC at 95,000, taken by Bob's IOC sell: one fill each. */
async function trade(alice: Trader, bob: Trader): Promise<void> {
  assert.equal((await alice.place({ price: '95000', quantity: '0.01' })).status, 200);
  const sold = await bob.place({ price: '95000', quantity: '-0.01', ioc: true });
  assert.equal(sold.status, 200, sold.text);
  assert.equal(sold.json()[0].status, 'filled', sold.text);
}

test('a signed request refused as expired stays refused after the host clock steps back an hour', async () => {
  const { ex, alice } = await exchangeWithTraders();
  const body = await alice.signedOrder({ price: '90000', quantity: '0.01', expiresAt: ex.now() + 1_000 });
  await ex.advance(2_000);
  assertError(await alice.send('POST', '/account/order', body), 400, 'Request expired');

  ex.stepHostClock(-HOUR);
  await ex.advance(10);
  // The same bytes, sent again (a retry, or anyone who saw them): before, an order placed an hour
  // after the exchange had refused it as expired.
  assertError(await alice.send('POST', '/account/order', body), 400, 'Request expired');
});

test('a resting order expires at its expiresAt though the host clock stepped back, and never fills after it', async () => {
  const { ex, alice, bob } = await exchangeWithTraders(1_000);
  const expiresAt = ex.now() + 2_000;
  const bid = await alice.place({ price: '95000', quantity: '0.01', expiresAt });
  assert.equal(bid.status, 200, bid.text);

  ex.stepHostClock(-HOUR);
  await ex.advance(3_000);
  const rested = await order(alice, bid.json()[0].orderId);
  assert.equal(rested.status, 'expired', 'the ticks after its expiresAt expire it');
  assert.ok(rested.updatedAt >= expiresAt, `expired at ${rested.updatedAt}, before its expiresAt ${expiresAt}`);
  // Before: the bid still rested (the exchange's time was an hour before its expiresAt) and Bob's sell filled it.
  const sold = await bob.place({ price: '95000', quantity: '-0.01', ioc: true });
  assert.equal(sold.status, 200, sold.text);
  assert.equal(sold.json()[0].status, 'cancelled', `nothing to fill: ${sold.text}`);
});

test('after the host clock steps back, a client polling its fills from the last one it saw sees the next', async () => {
  const { ex, alice, bob } = await exchangeWithTraders();
  await trade(alice, bob);
  const [first] = (await alice.get(`/account/fills?account=${alice.address}&subaccountIndex=0`)).json();

  ex.stepHostClock(-HOUR);
  await ex.advance(1_000);
  await trade(alice, bob);
  // Before: the second fill was dated an hour before the first, so a poll `from` the first
  // missed it, and the newest-first listing put it last.
  const since = (await alice.get(`/account/fills?account=${alice.address}&subaccountIndex=0&from=${first.time}`)).json();
  assert.equal(since.length, 2, JSON.stringify(since));
  assert.ok(since[0].time >= first.time, `the newest fill is dated ${first.time - since[0].time} ms before the one before it`);
});

test('the request budgets go on refilling after the host clock steps back: a client is not refused 429 for the length of the step', async () => {
  const { ex, alice } = await exchangeWithTraders();
  assert.equal((await alice.get(`/account/balance?account=${alice.address}&subaccountIndex=0`)).status, 200);

  ex.stepHostClock(-HOUR);
  await ex.advance(1_000);
  // Before: its budget's next arrival was an hour ahead of the clock, so every request was
  // refused 429 (Retry-After: 3600), the client's address' budget with it.
  const balance = await alice.get(`/account/balance?account=${alice.address}&subaccountIndex=0`);
  assert.equal(balance.status, 200, `${balance.status} ${balance.text} retry-after ${balance.headers.get('retry-after')}`);
});

test('restarted on a host whose clock is an hour behind, the exchange goes on from the journal\'s time: orders and trades are never dated before earlier ones', async () => {
  const { ex, alice, bob } = await exchangeWithTraders();
  const placed = await alice.place({ price: '90000', quantity: '0.01' });
  assert.equal(placed.status, 200, placed.text);
  await trade(alice, bob);
  const before = (await ex.request('GET', `/trades/${BTC}`)).json();

  ex.stepHostClock(-HOUR);
  const again = await ex.restart({ snapshot: false });
  assert.ok(again.now() >= ex.now(), `the restarted exchange's time is ${ex.now() - again.now()} ms behind the journal's`);
  alice.ex = bob.ex = again;
  await alice.login();
  await bob.login();
  // Before: cancelled an hour before it was created.
  const cancelled = await alice.send('DELETE', `/account/order?orderId=${placed.json()[0].orderId}`);
  assert.equal(cancelled.status, 200, cancelled.text);
  const resting = await order(alice, placed.json()[0].orderId);
  assert.equal(resting.status, 'cancelled');
  assert.ok(resting.updatedAt >= resting.createdAt, `updatedAt ${resting.updatedAt} is before createdAt ${resting.createdAt}`);

  await trade(alice, bob);
  const trades = (await again.request('GET', `/trades/${BTC}`)).json();
  assert.equal(trades.length, before.length + 1);
  assert.ok(trades[0].time >= before[0].time, `the newest trade is dated ${before[0].time - trades[0].time} s before the one before it`);
});

test('a TWAP\'s next child enters the book at its due time though the host clock stepped back an hour', async () => {
  const { ex, alice } = await exchangeWithTraders();
  const placed = await submitBatch(alice, Array.from({ length: 2 }, () => ({ orderType: 'twap', price: '90000', quantity: '0.01', period: MINUTE })));
  assert.equal(placed.status, 200, placed.text);
  const [first, second] = placed.json().orders;

  ex.stepHostClock(-HOUR);
  await ex.advance(MINUTE);
  // Before: its release waited for the host clock to come back an hour later.
  const child = await order(alice, second.orderId);
  assert.equal(child.status, 'new');
  assert.equal(child.updatedAt, first.createdAt + MINUTE);
});

test('a login token past its expiry is not accepted again after the host clock steps back', async () => {
  const { ex, alice } = await exchangeWithTraders();
  const balance = `/account/balance?account=${alice.address}&subaccountIndex=0`;
  assert.equal((await alice.get(balance)).status, 200);
  await ex.advance(16 * MINUTE);
  assertError(await alice.get(balance), 401, 'JWT token expired, please log in again');

  ex.stepHostClock(-HOUR);
  await ex.advance(1_000);
  // Before: the token, 15 minutes old, read the account again for the next 44 minutes.
  assertError(await alice.get(balance), 401, 'JWT token expired, please log in again');
});
