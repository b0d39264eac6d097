/**
 * Property tests: random traders, deposits, orders through the reference order book
 * (NaiveOrderBook), cancels, withdrawals and transfers, index moves and crashes, funding
 * periods, and liquidations run to the end (book, then insurance fund, then ADL); orders carry
 * originator fees up to the ceiling. After every event: money conserved to the unit
 * (`checkConservation`), every insurance-fund move an event, the ledger's other invariants
 * (positions net to zero, holds consistent, no stray negative balance) and the book's; no
 * reduce-only fill grew or turned its owner's position; a snapshot restores to the same hash.
 * A second property drives the ledger with direct fills (no holds, no margin checks) to push
 * accounts underwater as often as possible.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ALICE, BOB, BTC, CAROL, DAVE, ETH, MARKETS, usd } from './fixtures.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import type { LedgerEvent } from '../../src/ledger/events.ts';
import { NaiveOrderBook } from '../../src/engine/naive-book.ts';
import { OrderFlag, marketOfOrderId, orderIdOf, type BookListener, type Side } from '../../src/engine/types.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../../src/types/ids.ts';
import { marketNo, orderNo } from '../fixtures/ids.ts';
import { notionalScale, valueAt } from '../../src/ledger/units.ts';
import { ROUNDING_PROFIT } from '../../src/ledger/insolvency.ts';
import { cancelPicked, checkLedgerAndBooks, liquidate, sampleFunding } from './book-steps.ts';

const TRADERS = [ALICE, BOB, CAROL, DAVE];
const HOUR = 3_600_000;
const SCALES = MARKETS.map(notionalScale);

const op = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deposit' as const), who: fc.nat(3), amount: fc.integer({ min: 1, max: 300 }) }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      who: fc.nat(3),
      market: fc.nat(1),
      side: fc.constantFrom(1, -1) as fc.Arbitrary<Side>,
      price: fc.integer({ min: 60, max: 140 }),
      lots: fc.integer({ min: 1, max: 3000 }),
      ioc: fc.boolean(),
      reduceOnly: fc.boolean(),
      /** 10^-8 of notional, paid to the next trader: up to the default ceiling (0.1 %). */
      originatorFee: fc.constantFrom(0, 0, 50_000, 100_000),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('index' as const), market: fc.nat(1), price: fc.integer({ min: 20, max: 180 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('funding' as const), market: fc.nat(1), advance: fc.integer({ min: 1, max: HOUR }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('liquidate' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), who: fc.nat(3), amount: fc.integer({ min: 1, max: 200 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transfer' as const), who: fc.nat(3), to: fc.nat(3), amount: fc.integer({ min: 1, max: 200 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('margin' as const), who: fc.nat(3), market: fc.nat(1), isolated: fc.boolean(), leverage: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('insurance' as const), amount: fc.integer({ min: 1, max: 50 }) }) },
);

/** ETH prices are in cents: scale the 60..140 range to 6000..14000 ticks. */
const tickOf = (market: number, price: number) => (market === ETH ? price * 100 : price);

/** How often each event type happened across all runs: the properties must reach every path. */
const seen = new Map<string, number>();
const count = (e: LedgerEvent) => {
  const key = e.type === 'insurance' ? `insurance:${e.reason}` : e.type;
  seen.set(key, (seen.get(key) ?? 0) + 1);
};

function world(insurance: boolean) {
  let insuranceMoved = 0n;
  const adl: Array<[owner: OwnerIndex, market: number]> = [];
  const ledger = new Ledger(MARKETS, { faucet: true }, (e) => {
    count(e);
    if (e.type === 'insurance') insuranceMoved += e.delta;
    if (e.type === 'adl') adl.push([e.owner, e.market], [e.counterparty, e.market]);
  });
  const reduceOnly = new Set<number>();
  let time = 1;
  const listener: BookListener = {
    onAccepted() {},
    onRested() {},
    onLevel() {},
    onFill(_seq, makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, price, quantity, makerRemaining, takerRemaining, t) {
      const market = marketOfOrderId(makerOrderId);
      const before = [ledger.position(makerOwner, market), ledger.position(takerOwner, market)];
      assert.equal(ledger.settleFill(makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, marketOfOrderId(makerOrderId), price, quantity, t), LedgerCode.Ok);
      // As app/settlement does: a reduce-only order capped by the book holds more lots than it filled.
      if (makerRemaining === 0) ledger.releaseOrder(makerOrderId, t);
      if (takerRemaining === 0) ledger.releaseOrder(takerOrderId, t);
      ([[makerOwner, makerOrderId], [takerOwner, takerOrderId]] as const).forEach(([owner, orderId], i) => {
        if (!reduceOnly.has(orderId)) return;
        const after = ledger.position(owner, market);
        assert.ok(Math.abs(after) <= Math.abs(before[i]) && Math.sign(after) * Math.sign(before[i]) >= 0, `reduce-only order ${orderId} took owner ${owner} from ${before[i]} to ${after}`);
      });
    },
    onCancelled(_seq, orderId, _owner, _remaining, _reason, t) {
      ledger.releaseOrder(orderId, t);
    },
    onExpired(_seq, orderId, _owner, _remaining, _reason, t) {
      ledger.releaseOrder(orderId, t);
    },
    onRejected(_seq, orderId, _owner, _code, t) {
      ledger.releaseOrder(orderId, t);
    },
  };
  const books = MARKETS.map((m) => new NaiveOrderBook(m.index, listener, { minSizeLots: m.minSizeLots }));
  const counters = MARKETS.map(() => 0);
  const placed: OrderId[] = [];
  if (insurance) ledger.fundInsurance(usd(100), 0);
  const owners = TRADERS.map((a) => {
    ledger.deposit(a, 0, usd(500), 0);
    return ledger.findOwner(a, 0)!;
  });
  ledger.setIndexPrice(BTC, 100, 0);
  ledger.setIndexPrice(ETH, 10_000, 0);

  function place(owner: OwnerIndex, market: MarketIndex, side: Side, price: number, lots: number, flags: number, liquidation: boolean, originatorFee = 0) {
    const orderId = orderIdOf(market, ++counters[market]);
    const isReduceOnly = (flags & OrderFlag.ReduceOnly) !== 0;
    const originator = owners[(owners.indexOf(owner) + 1) % owners.length];
    const code = ledger.admitOrder(orderId, owner, market, side, price, lots, isReduceOnly, time, { liquidation, originator, originatorFee: BigInt(originatorFee) });
    if (code !== LedgerCode.Ok) return;
    if (isReduceOnly) reduceOnly.add(orderId);
    placed.push(orderId);
    books[market].place({
      orderId, owner, account: ledger.identity(owner)!.account, side, price, quantity: lots, flags, expiresAt: 0, clientId: null,
      position: ledger.positionOffBook(owner, market), time,
    });
  }

  function apply(o: { kind: string }) {
    time += 1;
    const a = o as never as Record<string, number & boolean & Side>;
    switch (o.kind) {
      case 'deposit': ledger.deposit(TRADERS[a.who], 0, usd(a.amount), time); break;
      case 'withdraw': ledger.withdraw(TRADERS[a.who], 0, usd(a.amount), time); break;
      case 'transfer': ledger.transfer(TRADERS[a.who], 0, TRADERS[a.to], 0, usd(a.amount), time); break;
      case 'insurance': ledger.fundInsurance(usd(a.amount), time); break;
      case 'margin': {
        const fraction = 100_000_000n / BigInt(a.leverage);
        ledger.setMargin(TRADERS[a.who], 0, a.market, a.isolated, fraction, time);
        break;
      }
      case 'order': {
        const flags = (a.ioc ? OrderFlag.ImmediateOrCancel : 0) | (a.reduceOnly ? OrderFlag.ReduceOnly : 0);
        place(owners[a.who], a.market, a.side, tickOf(a.market, a.price), a.lots, flags, false, a.originatorFee);
        break;
      }
      case 'cancel': cancelPicked(books, placed, a.pick, time); break;
      case 'index': ledger.setIndexPrice(a.market, tickOf(a.market, a.price), time); break;
      case 'funding':
        time += a.advance;
        sampleFunding(ledger, books, a.market, time);
        break;
      case 'liquidate': liquidate(ledger, books, time, place); break;
    }
  }

  /** What the application does after an ADL trade: both sides' resting reduce-only orders leave the book. */
  function afterEvents() {
    for (const [owner, market] of adl.splice(0)) {
      for (const o of books[market].ordersOf(owner)) if ((o.flags & OrderFlag.ReduceOnly) !== 0) books[market].cancel(o.orderId, owner, time);
    }
  }

  function check() {
    afterEvents();
    checkLedgerAndBooks(ledger, insuranceMoved, books, placed);
    assert.ok(ledger.insuranceFund >= 0n, `the insurance fund is ${ledger.insuranceFund}`);
  }
  return { ledger, apply, check };
}

test('random traders through the reference book keep every ledger invariant after every event', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.array(op, { minLength: 20, maxLength: 120, size: 'max' }), (insurance, ops) => {
      const w = world(insurance);
      ops.forEach((o, i) => {
        w.apply(o as never);
        w.check();
        if (i % 20 === 19) assert.equal(Ledger.restore(MARKETS, w.ledger.snapshot(), { faucet: true }).stateHash(), w.ledger.stateHash());
      });
    }),
    { numRuns: 150 },
  );
  for (const type of ['fill', 'liquidation', 'fundingPayment', 'transfer', 'margin']) assert.ok((seen.get(type) ?? 0) > 0, `never saw ${type}: ${[...seen]}`);
});

test('direct fills with no margin checks and mark crashes: money conserved to the unit, and the fund below zero only when no profit is left', () => {
  let deficits = 0;
  const fill = fc.record({ maker: fc.nat(3), taker: fc.nat(3), side: fc.constantFrom(1, -1) as fc.Arbitrary<Side>, price: fc.integer({ min: 1, max: 300 }), lots: fc.integer({ min: 1, max: 5000 }), market: fc.nat(1).map(marketNo) });
  const step = fc.oneof(
    { weight: 5, arbitrary: fill.map((f) => ({ kind: 'fill' as const, ...f })) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('index' as const), market: fc.nat(1).map(marketNo), price: fc.integer({ min: 1, max: 300 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('funding' as const), market: fc.nat(1).map(marketNo), bid: fc.integer({ min: 0, max: 300 }), ask: fc.integer({ min: 0, max: 300 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('liquidate' as const), fillShare: fc.integer({ min: 0, max: 100 }), at: fc.integer({ min: -20, max: 20 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('margin' as const), who: fc.nat(3), market: fc.nat(1).map(marketNo), isolated: fc.boolean(), leverage: fc.integer({ min: 1, max: 20 }) }) },
  );
  fc.assert(
    fc.property(fc.array(step, { minLength: 10, maxLength: 80, size: 'max' }), fc.integer({ min: 0, max: 200 }), (steps, fund) => {
      // The fund goes below zero only for a loss larger than every unrealised profit on the
      // exchange: once the fill (or the liquidation's end) that left it there is settled, nobody
      // but the losers holds a position in profit — the fill's own counterparty included. (The
      // ledger audits the same itself: validateInternalState below reports a deficit it found.)
      const losers = new Set<number>();
      const noticeDeficit = (e: LedgerEvent): void => {
        count(e);
        if (e.type === 'insurance' && e.reason === 'shortfall' && e.fund < 0n) losers.add(e.owner);
      };
      const noProfitLeftAfterADeficit = (what: string): void => {
        if (losers.size === 0) return;
        deficits += 1;
        for (let o = 1; o < ledger.ownerCount; o++) {
          if (losers.has(o)) continue;
          for (const p of ledger.positionsOf(o as OwnerIndex)) {
            const upnl = valueAt(SCALES[p.market], ledger.prices(p.market).mark, p.quantity) - p.basis;
            assert.ok(upnl <= ROUNDING_PROFIT, `after ${what} the fund is ${ledger.insuranceFund} while owner ${o} holds ${upnl} of profit in market ${p.market}`);
          }
        }
        losers.clear();
      };
      const ledger: Ledger = new Ledger(MARKETS, {}, noticeDeficit);
      if (fund > 0) ledger.fundInsurance(usd(fund), 0);
      const owners = TRADERS.map((a, i) => (ledger.deposit(a, 0, usd(50 * (i + 1)), 0), ledger.findOwner(a, 0)!));
      let time = 1;
      let orderId = 1;
      for (const s of steps) {
        time += 600_000;
        if (s.kind === 'fill') {
          if (s.maker !== s.taker) ledger.settleFill(orderNo(orderId++), orderNo(orderId++), owners[s.maker], owners[s.taker], s.side, s.market, tickOf(s.market, s.price), s.lots, time);
          noProfitLeftAfterADeficit('a fill');
        } else if (s.kind === 'margin') {
          ledger.setMargin(TRADERS[s.who], 0, s.market, s.isolated, 100_000_000n / BigInt(s.leverage), time);
        } else if (s.kind === 'index') {
          ledger.setIndexPrice(s.market, tickOf(s.market, s.price), time);
        } else if (s.kind === 'funding') {
          ledger.sampleFunding(s.market, tickOf(s.market, s.bid), tickOf(s.market, s.ask), time);
        } else {
          for (const l of ledger.checkLiquidations(time)) {
            const id = orderNo(orderId++);
            assert.equal(ledger.admitOrder(id, l.owner, l.market, l.side, l.price, l.quantity, true, time, { liquidation: true }), LedgerCode.Ok);
            const lots = Math.floor((l.quantity * s.fillShare) / 100);
            const price = Math.max(1, l.price - l.side * s.at); // a fill at the limit or better (worse for the maker)
            const maker = owners.find((o) => o !== l.owner)!;
            if (lots > 0) ledger.settleFill(orderNo(orderId++), id, maker, l.owner, l.side, l.market, l.side > 0 ? Math.min(price, l.price) : Math.max(price, l.price), lots, time);
            noProfitLeftAfterADeficit('a liquidation fill');
            ledger.releaseOrder(id, time);
            noProfitLeftAfterADeficit("a liquidation's end");
            ledger.validateInternalState();
          }
        }
        ledger.validateInternalState();
      }
    }),
    // Many short runs: a deficit needs a particular order of fills, and each run is ≈ 1 ms.
    { numRuns: 1000 },
  );
  assert.ok(deficits > 0, 'no run left the fund below zero: the check above never ran');
  for (const type of ['adl', 'socialisedLoss', 'insurance:shortfall', 'insurance:fundingDust', 'insurance:liquidationFee', 'liquidation']) assert.ok((seen.get(type) ?? 0) > 0, `never saw ${type}: ${[...seen]}`);
});
