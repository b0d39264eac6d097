/**
 * The shape of the isolated draw's tests (isolated-hold-loss, isolated-draw-attacks): Alice
 * (`cash` USD) on cross, short 1 BTC at 100 (the BTC index then 50: +50 USD) and long 1 SOL at
 * 100 (the SOL index then 80: −20 USD), 0.10 of fees paid; isolated in ETH (index and mark 10).
 * Bob is every counterparty; Carol and Dave are funded to trade; the fund holds `fund`. With
 * `marksTraded`, Bob and Carol trade one lot at each new index, so the marks are 50 and 80 and
 * Alice's cross headroom is `cash − 0.1 + 30 − 13`.
 * SOL here: BTC's terms as a third market.
 */
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, DAVE, ETH, MARKETS, harness, usd } from './fixtures.ts';
import { parseMarket } from '../../src/config/market.ts';
import { marketNo } from '../fixtures/ids.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';

export const SOL_MARKET = parseMarket(
  {
    symbol: 'SOL-USD-PERP', tickSize: '1', lotSize: '0.001', minSize: '0.001', maxLeverage: 10,
    initialMarginFraction: '0.1', maintenanceMarginFraction: '0.05', makerFee: '-0.0001', takerFee: '0.0005',
    fundingIntervalMs: 3_600_000, fundingRateCap: '0.04', interestRate: '0', oracleFeedId: '0x03', initialPrice: '100',
  },
  2,
);
export const SOL = marketNo(2);

export function aliceInProfitAndLoss({ cash = 11, fund = 1000, marksTraded = true } = {}) {
  const h = harness(undefined, undefined, [...MARKETS, SOL_MARKET]);
  if (fund > 0) assert.equal(h.ledger.fundInsurance(usd(fund), 0), LedgerCode.Ok);
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.setIndexPrice(ETH, 1000, 0);
  h.ledger.setIndexPrice(SOL, 100, 0);
  const alice = h.fund(ALICE, usd(cash));
  const bob = h.fund(BOB, usd(10_000));
  const carol = h.fund(CAROL, usd(10_000));
  const dave = h.fund(DAVE, usd(10_000));
  h.fill(bob, alice, -1, 100, 1000, BTC);
  h.fill(bob, alice, 1, 100, 1000, SOL);
  h.ledger.setIndexPrice(BTC, 50, 1);
  h.ledger.setIndexPrice(SOL, 80, 1);
  if (marksTraded) {
    h.fill(bob, carol, -1, 50, 1, BTC);
    h.fill(bob, carol, -1, 80, 1, SOL);
    assert.deepEqual([h.ledger.prices(BTC).mark, h.ledger.prices(SOL).mark, h.ledger.prices(ETH).mark], [50, 80, 1000]);
    assert.equal(h.ledger.collateral(alice), usd(cash - 0.1));
    assert.equal(h.ledger.stats(alice)!.freeCollateralCross, usd(cash - 0.1 + 30 - 13));
  }
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 1), LedgerCode.Ok);
  return { h, alice, bob, carol, dave };
}
