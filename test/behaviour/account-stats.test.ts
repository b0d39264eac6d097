/**
 * GET /account/stats, /account/balance, /account/positions and /account/margin on the in-process
 * exchange (test/harness/in-process-exchange), after real trades.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_KEY, ALICE, BOB_KEY, BOB } from '../auth/fixtures.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { ok, signedMarginUpdate } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const NOW = ex.now();
const [alice, bob] = [new Trader(ex, ALICE_KEY), new Trader(ex, BOB_KEY)];
for (const trader of [alice, bob]) await trader.login();
const setIndex = async (price: string) => ok(await ex.operator('POST', '/operator/index-price', { symbol: 'BTC-USD-PERP', price }));

/** Alice (taker) buys 0.1 BTC at 95000 from Bob (maker) at NOW + 1; the index is 95000, so the mark is too. */
async function aliceLong01BtcAt95000(): Promise<void> {
  await alice.fund('1000');
  await bob.fund('1000');
  await setIndex('95000');
  ok(await bob.place({ price: '95000', quantity: '-0.1' }));
  await ex.advance(1);
  const [taken] = ok(await alice.place({ price: '95000', quantity: '0.1' }));
  assert.equal(taken.status, 'filled');
}

test('a subaccount the ledger has never seen is 404 Account not found on stats, balance and margin; positions are empty', async () => {
  for (const path of ['/account/stats', '/account/balance', '/account/margin']) {
    const res = await alice.get(`${path}?account=${ALICE}&subaccountIndex=7`);
    assert.equal(res.status, 404, path);
    assert.equal(res.text, 'Account not found');
  }
  const positions = await alice.get(`/account/positions?account=${ALICE}&subaccountIndex=7`);
  assert.equal(positions.status, 200);
  assert.deepEqual(positions.json(), { positions: [] });
});

test('stats of a 1000 USD long 0.1 BTC: money in USD decimals, ratios as fractions', async () => {
  await aliceLong01BtcAt95000();
  const res = await alice.get(`/account/stats?account=${ALICE}&subaccountIndex=0`);
  assert.equal(res.status, 200, res.text);
  // Taker fee 0.05 % of 9500 = 4.75; IM 2 % = 190; MM 1.2 % = 114.
  assert.deepEqual(res.json(), {
    account: ALICE,
    subaccountIndex: 0,
    accountValue: '995.25',
    crossEquity: '995.25',
    crossLeverage: '9.54534036', // 9500 / 995.25, truncated to 8 decimals
    crossMarginRatio: '0.11454408', // 114 / 995.25
    crossMarginUsage: '0.1909068', // 190 / 995.25
    freeCollateral: '805.25',
    freeCollateralCross: '805.25',
    initialMarginRequirement: '190',
    maintMargin: '114',
    upnl: '0',
  });
});

test('positions: signed quantity, USD basis/fees/funding/margin, mark and unrealized PnL, updatedAt in ms', async () => {
  await ex.advance(1);
  await setIndex('96000'); // mark 96000: +100 USD on 0.1 BTC
  const res = await alice.get(`/account/positions?account=${ALICE}&subaccountIndex=0`);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json(), {
    positions: [{
      account: ALICE, subaccountIndex: 0, symbol: 'BTC-USD-PERP', quantity: '0.1', basis: '9500', fees: '4.75', funding: '0', margin: '0',
      isolated: false, markPrice: '96000', unrealizedPnl: '100', updatedAt: NOW + 1,
    }],
  });
  const bobs = await bob.get(`/account/positions?account=${BOB}&subaccountIndex=0&symbol=BTC`);
  assert.equal(bobs.json().positions[0].quantity, '-0.1');
  assert.equal(bobs.json().positions[0].basis, '-9500');
  assert.equal(bobs.json().positions[0].fees, '-0.95', 'maker rebate');
  assert.equal(bobs.json().positions[0].unrealizedPnl, '-100');
  const eth = await alice.get(`/account/positions?account=${ALICE}&subaccountIndex=0&symbol=ETH-USD-PERP`);
  assert.deepEqual(eth.json(), { positions: [] });
  const unknown = await alice.get(`/account/positions?account=${ALICE}&subaccountIndex=0&symbol=DOGE-USD-PERP`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'Symbol not found');
});

test('balance: collateral, isolated margin, order holds and what is free', async () => {
  const res = await alice.get(`/account/balance?account=${ALICE}&subaccountIndex=0`);
  assert.equal(res.status, 200, res.text);
  // Mark 96000: notional 9600, IM 192; collateral 995.25, equity 1095.25.
  assert.deepEqual(res.json(), {
    account: ALICE, subaccountIndex: 0, collateral: '995.25', isolatedMargin: '0', orderHolds: '0', initialMarginRequirement: '192',
    freeCollateral: '903.25', freeCollateralCross: '903.25', accountValue: '1095.25', upnl: '100',
  });
  const [resting] = ok(await alice.place({ price: '90000', quantity: '0.1' }));
  const held = (await alice.get(`/account/balance?account=${ALICE}&subaccountIndex=0`)).json();
  assert.notEqual(held.orderHolds, '0', 'a resting buy reserves margin');
  assert.equal(held.initialMarginRequirement, String(192 + Number(held.orderHolds)));
  ok(await alice.send('DELETE', `/account/order?orderId=${resting.orderId}`));
});

test('margin settings: the market default until set, leverage = 1 / margin', async () => {
  const res = await alice.get(`/account/margin?account=${ALICE}&subaccountIndex=0`);
  assert.equal(res.status, 200, res.text);
  const body = res.json();
  assert.equal(body.account, ALICE);
  assert.deepEqual(body.markets.map((m: { symbol: string }) => m.symbol), ['BTC-USD-PERP', 'ETH-USD-PERP', 'SOL-USD-PERP']);
  assert.deepEqual(body.markets[0], { symbol: 'BTC-USD-PERP', isolated: false, margin: '0.02', leverage: '50', maxLeverage: 50 });
  ok(await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: 'SOL-USD-PERP', isolated: true, margin: '0.3' })));
  const sol = (await alice.get(`/account/margin?account=${ALICE}&subaccountIndex=0&symbol=SOL`)).json();
  assert.deepEqual(sol.markets, [{ symbol: 'SOL-USD-PERP', isolated: true, margin: '0.3', leverage: '3.33333333', maxLeverage: 20 }]);
  const unknown = await alice.get(`/account/margin?account=${ALICE}&subaccountIndex=0&symbol=NOPE`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'Symbol not found');
});
