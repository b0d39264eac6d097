/** GET /account/stats, /account/balance, /account/positions and /account/margin over HTTP, against a real ledger. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_VIEM as ALICE_WALLET, ALICE, BOB_VIEM as BOB_WALLET, BOB } from '../auth/fixtures.ts';
import { Side } from '../../src/engine/types.ts';
import { startAccountServer, NOW, USD } from './account-server.ts';
import { marketNo, orderNo } from '../fixtures/ids.ts';

const BTC = marketNo(0);

const server = await startAccountServer();
const token = await server.login(ALICE_WALLET);
const bobToken = await server.login(BOB_WALLET);
const ledger = server.ledger;

/** Alice (taker) buys 0.1 BTC at 95000 from Bob (maker); the index is 95000, so the mark is too. */
function aliceLong01BtcAt95000(): void {
  ledger.deposit(ALICE, 0, 1000n * USD, NOW);
  ledger.deposit(BOB, 0, 1000n * USD, NOW);
  ledger.setIndexPrice(BTC, 950_000, NOW);
  const alice = ledger.findOwner(ALICE, 0)!;
  const bob = ledger.findOwner(BOB, 0)!;
  assert.equal(ledger.settleFill(orderNo(1), orderNo(2), bob, alice, Side.Buy, BTC, 950_000, 1000, NOW + 1), 0);
}

test('a subaccount the ledger has never seen is 404 Account not found on stats, balance and margin; positions are empty', async () => {
  for (const path of ['/account/stats', '/account/balance', '/account/margin']) {
    const res = await server.get(`${path}?account=${ALICE}&subaccountIndex=7`, token);
    assert.equal(res.status, 404, path);
    assert.equal(res.text, 'Account not found');
  }
  const positions = await server.get(`/account/positions?account=${ALICE}&subaccountIndex=7`, token);
  assert.equal(positions.status, 200);
  assert.deepEqual(positions.json(), { positions: [] });
});

test('stats of a 1000 USD long 0.1 BTC: money in USD decimals, ratios as fractions', async () => {
  aliceLong01BtcAt95000();
  const res = await server.get(`/account/stats?account=${ALICE}&subaccountIndex=0`, token);
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
  ledger.setIndexPrice(BTC, 960_000, NOW + 2); // mark 96000: +100 USD on 0.1 BTC
  const res = await server.get(`/account/positions?account=${ALICE}&subaccountIndex=0`, token);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json(), {
    positions: [{
      account: ALICE, subaccountIndex: 0, symbol: 'BTC-USD-PERP', quantity: '0.1', basis: '9500', fees: '4.75', funding: '0', margin: '0',
      isolated: false, markPrice: '96000', unrealizedPnl: '100', updatedAt: NOW + 1,
    }],
  });
  const bob = await server.get(`/account/positions?account=${BOB}&subaccountIndex=0&symbol=BTC`, bobToken);
  assert.equal(bob.json().positions[0].quantity, '-0.1');
  assert.equal(bob.json().positions[0].basis, '-9500');
  assert.equal(bob.json().positions[0].fees, '-0.95', 'maker rebate');
  assert.equal(bob.json().positions[0].unrealizedPnl, '-100');
  const eth = await server.get(`/account/positions?account=${ALICE}&subaccountIndex=0&symbol=ETH-USD-PERP`, token);
  assert.deepEqual(eth.json(), { positions: [] });
  const unknown = await server.get(`/account/positions?account=${ALICE}&subaccountIndex=0&symbol=DOGE-USD-PERP`, token);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'Symbol not found');
});

test('balance: collateral, isolated margin, order holds and what is free', async () => {
  const res = await server.get(`/account/balance?account=${ALICE}&subaccountIndex=0`, token);
  assert.equal(res.status, 200, res.text);
  // Mark 96000: notional 9600, IM 192; collateral 995.25, equity 1095.25.
  assert.deepEqual(res.json(), {
    account: ALICE, subaccountIndex: 0, collateral: '995.25', isolatedMargin: '0', orderHolds: '0', initialMarginRequirement: '192',
    freeCollateral: '903.25', freeCollateralCross: '903.25', accountValue: '1095.25', upnl: '100',
  });
  const alice = ledger.findOwner(ALICE, 0)!;
  assert.equal(ledger.admitOrder(orderNo(77), alice, BTC, Side.Buy, 900_000, 1000, false, NOW + 3), 0);
  const held = (await server.get(`/account/balance?account=${ALICE}&subaccountIndex=0`, token)).json();
  assert.notEqual(held.orderHolds, '0', 'a resting buy reserves margin');
  assert.equal(held.initialMarginRequirement, String(192 + Number(held.orderHolds)));
  ledger.releaseOrder(orderNo(77), NOW + 4);
});

test('margin settings: the market default until set, leverage = 1 / margin', async () => {
  const res = await server.get(`/account/margin?account=${ALICE}&subaccountIndex=0`, token);
  assert.equal(res.status, 200, res.text);
  const body = res.json();
  assert.equal(body.account, ALICE);
  assert.deepEqual(body.markets.map((m: { symbol: string }) => m.symbol), ['BTC-USD-PERP', 'ETH-USD-PERP', 'SOL-USD-PERP']);
  assert.deepEqual(body.markets[0], { symbol: 'BTC-USD-PERP', isolated: false, margin: '0.02', leverage: '50', maxLeverage: 50 });
  assert.equal(ledger.setMargin(ALICE, 0, marketNo(2), true, 30_000_000n, NOW + 5), 0);
  const sol = (await server.get(`/account/margin?account=${ALICE}&subaccountIndex=0&symbol=SOL`, token)).json();
  assert.deepEqual(sol.markets, [{ symbol: 'SOL-USD-PERP', isolated: true, margin: '0.3', leverage: '3.33333333', maxLeverage: 20 }]);
  const unknown = await server.get(`/account/margin?account=${ALICE}&subaccountIndex=0&symbol=NOPE`, token);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'Symbol not found');
});
