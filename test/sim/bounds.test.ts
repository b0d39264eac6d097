/**
 * The hostile simulator's leverage bound (sim/bounds.ts): an account below maintenance with no
 * liquidation in flight is a violation only outside its liquidation window — while no mark has
 * left where the last Tick left it and nothing outside the account's control moved it. These
 * fixtures are the situations fresh seeds met (a mark that moved and came back, funding at an
 * unchanged mark), and the one the bound exists for (an account's own trade) — both at the
 * Tick's marks and per command (`beforeCommand`/`afterCommand`), where a mark move or another's
 * act during the command opens the window and anything else the command did is its own.
 * Ledger fixtures (test/ledger/fixtures.ts): BTC IMF 10 %, MMF 5 %; 1000 lots at 100 = 100 USD.
 * The ledger has no index price until a test sets one, so a fill's price is the mark.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bounds } from '../../sim/bounds.ts';
import { FundPayouts } from '../../sim/fund-payouts.ts';
import type { Exchange } from '../../src/app/exchange.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { ALICE, BOB, BTC, CAROL, MARKETS, harness, usd, type Harness } from '../ledger/fixtures.ts';
import type { OrderId, OwnerIndex } from '../../src/types/ids.ts';
import { orderNo } from '../fixtures/ids.ts';

const HOUR = 3_600_000;

/** A ledger whose events the bounds hear, and the exchange the bounds read (they read only its ledger, markets and open orders: none here). */
function watched() {
  const bounds = new Bounds(MARKETS);
  const h = harness(undefined, (e) => bounds.onLedgerEvent(e));
  const exchange = { ledger: h.ledger, markets: MARKETS, orders: { ofOwner: () => [], openOrders: () => [].values() } } as unknown as Exchange;
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  return { bounds, h, exchange, alice, bob, carol };
}

/** Alice isolated at 10×, long 1 BTC at 100 from Bob: margin 9.95 (IM 10 less the taker fee). */
function aliceIsolatedLong(h: Harness, alice: OwnerIndex, bob: OwnerIndex): void {
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  h.fill(bob, alice, 1, 100, 1000);
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, usd(9.95));
}

/**
 * A Tick as Exchange.tick runs it — funding sampled from the book's best bid and ask, the
 * liquidation orders admitted — then the simulator's `afterTick`. Returns the orders' ids.
 */
function tick(h: Harness, bounds: Bounds, exchange: Exchange, time: number, bid = 0, ask = 0): OrderId[] {
  for (const m of MARKETS) h.ledger.sampleFunding(m.index, bid, ask, time);
  const ids = h.ledger.checkLiquidations(time).map((o, i) => {
    const orderId = orderNo(900 + time * 10 + i);
    assert.equal(h.ledger.admitOrder(orderId, o.owner, o.market, o.side, o.price, o.quantity, true, time, { liquidation: true }), LedgerCode.Ok);
    return orderId;
  });
  bounds.afterTick(exchange);
  return ids;
}

test('MARK_LEFT_AND_CAME_BACK: a liquidation that ended above maintenance at another mark, then the mark back where the Tick left it, is inside the window (seeds 2006, 2039)', () => {
  const { bounds, h, exchange, alice, bob, carol } = watched();
  aliceIsolatedLong(h, alice, bob);
  h.fill(bob, carol, 1, 94, 1); // others trade at 94: Alice 9.95 − 6 = 3.95 < MM 4.7
  const [liquidation] = tick(h, bounds, exchange, 2);
  assert.deepEqual(h.ledger.liquidatingIn(alice), [BTC]);
  h.fill(carol, bob, 1, 97, 1); // the mark rises: 9.95 − 3 = 6.95 ≥ MM 4.85
  // Its IOC found no bid at its limit and ended; above maintenance there, nothing is deleveraged.
  h.ledger.releaseOrder(liquidation, 3);
  assert.equal(h.ledger.position(alice, BTC), 1000);
  h.fill(bob, carol, 1, 94, 1); // and falls back to 94
  assert.equal(h.ledger.prices(BTC).mark, 94, 'every mark where the last Tick left it');
  assert.deepEqual(h.ledger.liquidatable(alice), [BTC], 'below maintenance, no liquidation in flight');
  // Others' trades put it there, not its own acts: the engine acts at the next Tick.
  assert.equal(bounds.check(exchange), null);
  assert.equal(tick(h, bounds, exchange, 4).length, 1);
  assert.equal(bounds.check(exchange), null);
});

test('FUNDING_AT_AN_UNCHANGED_MARK: a funding payment that takes an isolated position below maintenance is inside the window', () => {
  const { bounds, h, exchange, alice, bob, carol } = watched();
  aliceIsolatedLong(h, alice, bob);
  h.fill(bob, carol, 1, 98, 1); // last 98: Alice 9.95 − 2 = 7.95 ≥ MM 4.9
  assert.equal(h.ledger.setIndexPrice(BTC, 98, 1), LedgerCode.Ok);
  // The book 103/104 against the index 98: premium 5.1 %, the mark the median of 98, 103.5 and 98.
  assert.deepEqual(tick(h, bounds, exchange, 2, 103, 104), []);
  assert.equal(h.ledger.prices(BTC).mark, 98);
  // The next index price, the same, settles the hour's funding at the 4 % cap: Alice pays 3.92.
  assert.equal(h.ledger.setIndexPrice(BTC, 98, HOUR), LedgerCode.Ok);
  assert.equal(h.ledger.positionOf(alice, BTC)!.funding, -usd(3.92));
  assert.equal(h.ledger.prices(BTC).mark, 98, 'the mark did not move');
  assert.deepEqual(h.ledger.liquidatable(alice), [BTC], '6.03 − 2 = 4.03 < MM 4.9');
  assert.equal(bounds.check(exchange), null);
});

test('OWN_TRADE_AT_THE_MARK: an account below maintenance by its own taker fill, with every mark where the Tick left it, is a violation', () => {
  const { bounds, h, exchange, alice, bob, carol } = watched();
  h.fill(bob, carol, 1, 100, 1);
  tick(h, bounds, exchange, 2);
  assert.equal(bounds.check(exchange), null);
  // 100 BTC at 100 on 100 USD, unadmitted (what a pre-trade check letting it through would do): equity 95 < MM 500.
  h.fill(bob, alice, 1, 100, 100_000);
  assert.equal(h.ledger.prices(BTC).mark, 100);
  assert.match(bounds.check(exchange) ?? '', new RegExp(`^owner ${alice} is below maintenance in market ${BTC} with every mark where the last Tick left it, by its own acts`));
});

test('OWN_COMMAND_AFTER_A_MARK_MOVE: with the Tick window open (a mark moved since), an account below maintenance by its own command that moved no mark is a violation', () => {
  const { bounds, h, exchange, alice, bob, carol } = watched();
  h.fill(bob, carol, 1, 100, 1);
  tick(h, bounds, exchange, 2);
  h.fill(bob, carol, 1, 101, 1); // others move the mark: every account is in the Tick window
  assert.equal(bounds.check(exchange), null);
  const span = bounds.beforeCommand(exchange, alice);
  // Its own taker fill at the mark, unadmitted (a pre-trade check letting it through): equity ~95 < MM 505.
  h.fill(bob, alice, 1, 101, 100_000);
  assert.equal(h.ledger.prices(BTC).mark, 101, 'the command moved no mark');
  bounds.afterCommand(span);
  // The Tick-marks check does not run here (the mark left 100); only the per-command one sees it.
  assert.match(bounds.check(exchange) ?? '', new RegExp(`^owner ${alice} is below maintenance in market ${BTC} after a command of its own that moved no mark`));
  assert.equal(bounds.counts.ownCommand, 1);
});

test('OWN_FILL_MOVED_THE_MARK: a command whose own fill moved the mark leaves the account in its window until the next Tick', () => {
  const { bounds, h, exchange, alice, bob, carol } = watched();
  h.fill(bob, carol, 1, 100, 1);
  tick(h, bounds, exchange, 2);
  const span = bounds.beforeCommand(exchange, alice);
  // Admission priced its open loss at the mark 100; the fill at 102 moves the mark it is then measured at.
  h.fill(bob, alice, 1, 102, 100_000);
  assert.deepEqual(h.ledger.liquidatable(alice), [BTC]);
  bounds.afterCommand(span);
  assert.equal(bounds.check(exchange), null);
  assert.equal(bounds.counts.ownCommand, 0, 'not evaluated: the engine answers a mark move at the next Tick');
  // The next Tick's liquidation order closes the window.
  assert.equal(tick(h, bounds, exchange, 3).length, 1);
  assert.equal(bounds.check(exchange), null);
});

test('OTHERS_DURING_THE_COMMAND: a maker fill of the account while its command is in flight opens its window', () => {
  const { bounds, h, exchange, alice, bob, carol } = watched();
  h.fill(bob, carol, 1, 100, 1);
  tick(h, bounds, exchange, 2);
  const span = bounds.beforeCommand(exchange, alice);
  // Another's order takes a resting order of Alice's at the mark (unadmitted, as a hold the ledger got wrong would).
  h.fill(alice, bob, -1, 100, 100_000);
  assert.deepEqual(h.ledger.liquidatable(alice), [BTC]);
  bounds.afterCommand(span);
  assert.equal(bounds.counts.ownCommand, 0);
  assert.equal(bounds.check(exchange), null);
});

test('FUND_PAYOUTS: what others pay of an owner\'s losses is bounded by what the market took from it since it was healthy (sim/fund-payouts.ts)', () => {
  const at = { mark: () => 100, position: () => 1000 };
  const owner = 1 as OwnerIndex;
  const shortfall = (usdPaid: number) => ({ type: 'insurance', delta: -usd(usdPaid), fund: 0n, reason: 'shortfall', owner, time: 0 }) as const;
  // Nothing taken by the market: a 1 USD shortfall is an order's loss its hold did not cover.
  let p = new FundPayouts(MARKETS, at);
  p.onLedgerEvent(shortfall(1));
  assert.match(p.broken ?? '', /others paid 1000000 of owner 1's losses \(an insurance-fund shortfall/);
  // The index fell 2 USD under its 1 BTC long: 2 USD may be paid, not 2.5 (1000 lots at 100: tolerance 0.25 + 1 unit).
  p = new FundPayouts(MARKETS, at);
  p.indexMoved(BTC, 100, 98, [[owner, 1000]]);
  p.onLedgerEvent({ type: 'liquidation', order: { owner, account: 1 as never, market: BTC, side: -1, price: 100, quantity: 1000, bankruptcyPrice: 100 }, time: 0 });
  p.onLedgerEvent(shortfall(2));
  assert.equal(p.broken, null);
  p.onLedgerEvent(shortfall(0.5));
  assert.match(p.broken ?? '', /beyond what the market took from it \(2000000/);
  // Healthy since: what came before is settled; a move against a resting ask is the market's.
  p = new FundPayouts(MARKETS, at);
  p.indexMoved(BTC, 100, 90, [[owner, 1000]]);
  p.healthy(owner, [{ market: BTC, side: -1, price: 97, remaining: 1000 }]);
  p.onLedgerEvent(shortfall(3));
  assert.equal(p.broken, null, 'the ask at 97 under a mark of 100 loses 3 USD filled now');
  p.onLedgerEvent(shortfall(1));
  assert.notEqual(p.broken, null);
  assert.equal(p.shortfallsChecked, 2);
});
