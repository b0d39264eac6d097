/**
 * No money from nowhere (issue 13, found 1–4), through HTTP with viem-signed orders: the
 * originator fee has a published ceiling, an order holds the loss its limit takes against the
 * mark and its fees (a trader cannot go bankrupt into an accomplice's order), an isolated
 * position's margin is cash (never unrealised profit), reduce-only orders never open or flip a
 * position however many rest, and the operator sees where every unit of money is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange, type InProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders, type Trader } from '../harness/traders.ts';
import { assertError, BTC, ETH, ok, signedMarginUpdate, sub } from '../harness/api-helpers.ts';

async function setIndex(ex: InProcessExchange, price: string, symbol = BTC): Promise<void> {
  ok(await ex.operator('POST', '/operator/index-price', { symbol, price }));
}

async function money(ex: InProcessExchange): Promise<{ problem: string | null; money: Record<string, string> }> {
  return ok(await ex.operator('GET', '/operator/state-hash'));
}

const accountValue = async (t: Trader) => ok(await t.get(`/account/stats?${sub(t)}`)).accountValue;

test('the originator fee has a per-market ceiling, published in GET /markets, and an order above it is refused with 400', async () => {
  const ex = await startInProcessExchange();
  const markets = ok(await ex.request('GET', '/markets')).markets;
  assert.equal(markets.find((m: any) => m.symbol === BTC).maxOriginatorFee, '0.001');
  const [alice, carol] = await fundedTraders(ex, ['100000', '0.000001']);
  const text = (fee: number | string) => `originatorFee must be at most 100000 (0.001 of notional) in ${BTC}, got ${fee}`;
  // 100 % of the notional, 1,000 % (the reproduction) and 2^53 − 1.
  for (const fee of [100_000_000, 1_000_000_000, Number.MAX_SAFE_INTEGER]) {
    assertError(await alice.place({ price: '90000', quantity: '0.01', originator: carol.address, originatorFee: fee }), 400, text(fee));
  }
  assertError(await alice.place({ price: '90000', quantity: '0.01', originator: carol.address, originatorFee: 100_001 }), 400, text(100_001));
  const [atCeiling] = ok(await alice.place({ price: '90000', quantity: '0.01', originator: carol.address, originatorFee: 100_000 }));
  assert.equal(atCeiling.status, 'new');
});

test('a close that would leave its loss or fees for others to pay is refused: no siphon into an accomplice\'s bid, and the originator is paid out of what the account holds', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob, carol] = await fundedTraders(ex, ['19.5', '100000', '10']);
  await setIndex(ex, '95000');
  // Alice takes 0.01 long at 95000 at the most leverage she can: 19 USD margin + 0.475 taker fee.
  ok(await bob.place({ price: '95000', quantity: '-0.01' }));
  const [bought] = ok(await alice.place({ price: '95000', quantity: '0.01' }));
  assert.equal(bought.status, 'filled');
  // The bankruptcy siphon: her accomplice bids 1000, she sells into it. Filled, Alice would lose
  // 940 of her 19.025 and the insurance fund and Bob's profit would pay Carol the rest.
  ok(await carol.place({ price: '1000', quantity: '0.01' }));
  assertError(await alice.place({ price: '1000', quantity: '-0.01', reduceOnly: true, ioc: true }), 400, 'Insufficient margin');
  // The fee siphon: into a bid 1,900 below, the loss takes 19 of 19.025 and leaves nothing for a
  // taker fee of 0.475 and an originator fee of 0.95 to her accomplice.
  ok(await bob.place({ price: '93100', quantity: '0.01' }));
  assertError(await alice.place({ price: '93100', quantity: '-0.01', reduceOnly: true, ioc: true, originator: carol.address, originatorFee: 100_000 }), 400, 'Insufficient margin');
  // At the mark she can pay both.
  ok(await bob.place({ price: '95000', quantity: '0.01' }));
  const [closed] = ok(await alice.place({ price: '95000', quantity: '-0.01', reduceOnly: true, ioc: true, originator: carol.address, originatorFee: 100_000 }));
  assert.equal(closed.status, 'filled', JSON.stringify(closed));

  assert.equal(await accountValue(carol), '10.95', 'the accomplice is paid the originator fee Alice paid');
  assert.equal(await accountValue(alice), '17.6', '19.5 less two taker fees and the originator fee');
  const state = await money(ex);
  assert.equal(state.problem, null);
  assert.equal(state.money.insuranceFund, '0', 'the insurance fund paid nothing');
  assert.equal(state.money.imbalance, '0');
  // Two fills of 950: Alice's taker fee 0.475 less Bob's rebate 0.095, twice.
  assert.equal(state.money.feesCollected, '0.76');
});

test('an isolated order is paid for in cash: unrealised profit in the cross account does not fund it, so no position opens below maintenance', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob] = await fundedTraders(ex, ['20', '100000']);
  await setIndex(ex, '95000');
  await setIndex(ex, '3000', ETH);
  // Alice shorts 0.01 BTC at 95000 on cross (IM 19 of her 20 held, fee 0.475 paid).
  ok(await bob.place({ price: '95000', quantity: '0.01' }));
  const [short] = ok(await alice.place({ price: '95000', quantity: '-0.01' }));
  assert.equal(short.status, 'filled');
  // BTC falls 10,000: her short is 100 USD in profit; her cash is what she had less the fee.
  await setIndex(ex, '85000');
  const balance = ok(await alice.get(`/account/balance?${sub(alice)}`));
  assert.equal(balance.collateral, '19.525');
  assert.ok(Number(balance.freeCollateralCross) > 100, `free collateral for orders ${balance.freeCollateralCross}`);
  const update = await signedMarginUpdate(alice, { symbol: ETH, isolated: true, margin: '0.02' });
  assert.equal((await alice.send('POST', '/account/margin', update)).status, 200);
  // An isolated buy of 1 ETH at 3000 at 50× needs 60 of margin and 1.5 of fee out of her cash:
  // within her headroom, beyond her cash; her profit cannot be moved, so it is refused. (It was
  // admitted and filled with the 19.525 there was: 18.025 of margin against a maintenance margin
  // of 36, below it at an unchanged mark, its losses beyond that left to the insurance fund.)
  ok(await bob.place({ price: '3000', quantity: '-2', symbol: ETH }));
  assertError(await alice.place({ price: '3000', quantity: '1', symbol: ETH }), 400, 'Insufficient margin');
  // 0.1 ETH (6 of margin, 0.15 of fee) fits in the cash, and opens above maintenance (3.6).
  const [small] = ok(await alice.place({ price: '3000', quantity: '0.1', symbol: ETH }));
  assert.equal(small.status, 'filled');
  const eth = ok(await alice.get(`/account/positions?${sub(alice)}&symbol=${ETH}`)).positions[0];
  assert.equal(eth.isolated, true);
  assert.equal(eth.margin, '5.85', 'IM 6 moved in, the fee paid from it');
  assert.equal((await money(ex)).problem, null);
});

async function position(t: Trader): Promise<string> {
  const positions = ok(await t.get(`/account/positions?${sub(t)}`)).positions;
  return positions.length === 0 ? '0' : positions[0].quantity;
}

test('a ladder of reduce-only sells cannot outgrow the long it closes: 60 sells of 0.01 against a 0.01 long leave the account flat, not short 0.59', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob] = await fundedTraders(ex, ['100', '100000']);
  await setIndex(ex, '95000');
  ok(await bob.place({ price: '95000', quantity: '-0.01' }));
  ok(await alice.place({ price: '95000', quantity: '0.01' }));
  assert.equal(await position(alice), '0.01');

  const ladder = [];
  for (let i = 0; i < 60; i++) ladder.push((ok(await alice.place({ price: String(95100 + i * 10), quantity: '-0.01', reduceOnly: true })) as any[])[0]);
  assert.equal(ladder[0].status, 'new');
  assert.deepEqual(new Set(ladder.slice(1).map((o) => `${o.status} ${o.reason}`)), new Set(['rejected reduceOnlyWouldIncrease']), 'the resting reduce-only sells already close the whole long');

  const [sweep] = ok(await bob.place({ price: '96000', quantity: '0.6', ioc: true }));
  assert.equal(sweep.settled, '0.01');
  assert.equal(await position(alice), '0');
  const stats = ok(await alice.get(`/account/stats?${sub(alice)}`));
  assert.equal(stats.crossLeverage, '0');
  assert.equal((await money(ex)).problem, null);
});

test('a reduce-only order left resting when its position closes leaves the book: it can never open a new position', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob] = await fundedTraders(ex, ['100', '100000']);
  await setIndex(ex, '95000');
  ok(await bob.place({ price: '95000', quantity: '-0.01' }));
  ok(await alice.place({ price: '95000', quantity: '0.01' }));
  const [takeProfit] = ok(await alice.place({ price: '96000', quantity: '-0.01', reduceOnly: true }));
  assert.equal(takeProfit.status, 'new');
  // Alice closes the long with an ordinary sell into Bob's bid: the take-profit no longer reduces anything.
  ok(await bob.place({ price: '95000', quantity: '0.01' }));
  const [close] = ok(await alice.place({ price: '95000', quantity: '-0.01' }));
  assert.equal(close.status, 'filled');
  const after = ok(await alice.get(`/account/order?orderId=${takeProfit.orderId}`));
  assert.equal(after.status, 'cancelled');
  assert.equal(after.reason, 'reduceOnly');
  // A buyer at 96000 finds nothing of Alice's: she stays flat.
  const [buy] = ok(await bob.place({ price: '96000', quantity: '0.01', ioc: true }));
  assert.equal(buy.settled, '0');
  assert.equal(await position(alice), '0');
});
