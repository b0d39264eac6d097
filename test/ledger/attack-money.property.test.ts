/**
 * Attack property (branch attack-money): eight traders (two of them with a second subaccount)
 * through the reference book with holds, in the BTC market (notional multiplies) and the ETH
 * market (notional divides by 10, rounded down): tiny lots at prices with every residue, the
 * same account's orders meeting each other, reduce-only and post-only, originator fees to one
 * of them, funding settled at real boundaries with the index away from the book, index gaps,
 * liquidations, isolated margin switched back and forth, transfers between own subaccounts.
 * After every step: money conserved to the unit, every fund move an event, the fund never below
 * zero (it starts empty) unless the ledger's audit finds no profit left, fees collected never below zero, the ledger's and the books' invariants.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BTC, ETH, MARKETS, usd } from './fixtures.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { NaiveOrderBook } from '../../src/engine/naive-book.ts';
import { OrderFlag, marketOfOrderId, orderIdOf, type BookListener, type Side } from '../../src/engine/types.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../../src/types/ids.ts';
import { cancelPicked, checkLedgerAndBooks, liquidate, sampleFunding } from './book-steps.ts';
let deficits = 0;

const HOUR = 3_600_000;
const ADDRESSES = Array.from({ length: 8 }, (_, i) => '0x' + (i + 1).toString(16).repeat(40));
/** (address index, subaccount) of every owner: traders 0 and 1 have a subaccount 1 too. */
const SLOTS: Array<[number, number]> = [...ADDRESSES.map((_, i) => [i, 0] as [number, number]), [0, 1], [1, 1]];

const market = fc.constantFrom(BTC, ETH, ETH);
const op = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deposit' as const), who: fc.nat(SLOTS.length - 1), units: fc.integer({ min: 1, max: 50_000_000 }) }) },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      who: fc.nat(SLOTS.length - 1),
      market,
      side: fc.constantFrom(1, -1) as fc.Arbitrary<Side>,
      /** Offset from the index in 0.1 %. */
      offset: fc.oneof(fc.integer({ min: -150, max: 150 }), fc.integer({ min: -900, max: 3000 })),
      residue: fc.nat(9),
      lots: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 3000 })),
      flags: fc.constantFrom(0, 0, OrderFlag.ImmediateOrCancel, OrderFlag.ReduceOnly, OrderFlag.PostOnly, OrderFlag.ReduceOnly | OrderFlag.ImmediateOrCancel),
      originatorFee: fc.constantFrom(0, 0, 1, 99_999, 100_000),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('index' as const), market, move: fc.oneof(fc.integer({ min: -60, max: 60 }), fc.integer({ min: -600, max: 600 })) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('funding' as const), market, advance: fc.integer({ min: 1, max: HOUR }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('liquidate' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), who: fc.nat(SLOTS.length - 1), units: fc.integer({ min: 1, max: 100_000_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transfer' as const), who: fc.nat(SLOTS.length - 1), to: fc.nat(SLOTS.length - 1), units: fc.integer({ min: 1, max: 100_000_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('margin' as const), who: fc.nat(SLOTS.length - 1), market, isolated: fc.boolean(), leverage: fc.integer({ min: 1, max: 20 }) }) },
);

const seen = new Map<string, number>();

function world() {
  let insuranceMoved = 0n;
  const ledger = new Ledger(MARKETS, {}, (e) => {
    const key = e.type === 'insurance' ? `insurance:${e.reason}` : e.type;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    if (e.type === 'insurance') insuranceMoved += e.delta;
  });
  let time = 1;
  const adl: Array<[OwnerIndex, number]> = [];
  const listener: BookListener = {
    onAccepted() {},
    onRested() {},
    onLevel() {},
    onFill(_seq, makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, price, quantity, makerRemaining, takerRemaining, t) {
      assert.equal(ledger.settleFill(makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, marketOfOrderId(makerOrderId), price, quantity, t), LedgerCode.Ok);
      if (makerRemaining === 0) ledger.releaseOrder(makerOrderId, t);
      if (takerRemaining === 0) ledger.releaseOrder(takerOrderId, t);
    },
    onCancelled(_seq, orderId, _owner, _remaining, _reason, t) { ledger.releaseOrder(orderId, t); },
    onExpired(_seq, orderId, _owner, _remaining, _reason, t) { ledger.releaseOrder(orderId, t); },
    onRejected(_seq, orderId, _owner, _code, t) { ledger.releaseOrder(orderId, t); },
  };
  const books = MARKETS.map((m) => new NaiveOrderBook(m.index, listener, { minSizeLots: m.minSizeLots }));
  const counters = MARKETS.map(() => 0);
  const placed: OrderId[] = [];
  const owners = SLOTS.map(([a, sub]) => {
    ledger.deposit(ADDRESSES[a], sub, usd(300), 0);
    return ledger.findOwner(ADDRESSES[a], sub)!;
  });
  const index = [100, 10_000];
  ledger.setIndexPrice(BTC, index[BTC], 0);
  ledger.setIndexPrice(ETH, index[ETH], 0);

  function place(owner: OwnerIndex, m: MarketIndex, side: Side, price: number, lots: number, flags: number, liquidation: boolean, originatorFee = 0) {
    const orderId = orderIdOf(m, ++counters[m]);
    const reduceOnly = (flags & OrderFlag.ReduceOnly) !== 0;
    const code = ledger.admitOrder(orderId, owner, m, side, price, lots, reduceOnly, time, { liquidation, originator: owners[7], originatorFee: BigInt(originatorFee) });
    if (code !== LedgerCode.Ok) return;
    placed.push(orderId);
    books[m].place({ orderId, owner, account: ledger.identity(owner)!.account, side, price, quantity: lots, flags, expiresAt: 0, clientId: null, position: ledger.positionOffBook(owner, m), time });
  }

  function apply(o: Record<string, never>) {
    time += 1;
    const a = o as Record<string, number>;
    const [addr, sub] = SLOTS[a.who ?? 0];
    switch (o.kind as string) {
      case 'deposit': ledger.deposit(ADDRESSES[addr], sub, BigInt(a.units), time); break;
      case 'withdraw': ledger.withdraw(ADDRESSES[addr], sub, BigInt(a.units), time); break;
      case 'transfer': {
        const [to, toSub] = SLOTS[a.to];
        ledger.transfer(ADDRESSES[addr], sub, ADDRESSES[to], toSub, BigInt(a.units), time);
        break;
      }
      case 'margin': ledger.setMargin(ADDRESSES[addr], sub, a.market as MarketIndex, a.isolated as never as boolean, 100_000_000n / BigInt(a.leverage), time); break;
      case 'order': {
        const m = a.market as MarketIndex;
        const base = Math.round((index[m] * (1000 + a.offset)) / 1000);
        const price = Math.max(1, m === ETH ? base - (base % 10) + a.residue : base);
        place(owners[a.who], m, a.side as Side, price, a.lots, a.flags, false, a.originatorFee);
        break;
      }
      case 'cancel': cancelPicked(books, placed, a.pick, time); break;
      case 'index': {
        const m = a.market as MarketIndex;
        index[m] = Math.min(m === ETH ? 1_000_000 : 10_000, Math.max(m === ETH ? 100 : 2, Math.round((index[m] * (1000 + a.move)) / 1000)));
        ledger.setIndexPrice(m, index[m], time);
        break;
      }
      case 'funding':
        time += a.advance;
        sampleFunding(ledger, books, a.market as MarketIndex, time);
        break;
      case 'liquidate': liquidate(ledger, books, time, place); break;
    }
  }

  function check() {
    checkLedgerAndBooks(ledger, insuranceMoved, books, placed);
    // A loss larger than every unrealised profit on the exchange is the one deficit allowed: the
    // ledger audits that itself after each fill and liquidation's end (validateInternalState).
    if (ledger.insuranceFund < 0n) deficits++;
    assert.ok(ledger.feesCollected >= 0n, `fees collected ${ledger.feesCollected}`);
  }
  return { ledger, apply, check };
}

const RUNS = Number(process.env.ATTACK_RUNS ?? 60);
const STEPS = Number(process.env.ATTACK_STEPS ?? 300);

test('tiny lots, divided notionals, funding, liquidations, subaccounts: money conserved, fees never below zero, the fund below zero only past every profit', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: STEPS / 2, maxLength: STEPS, size: 'max' }), (ops) => {
      const w = world();
      ops.forEach((o, i) => {
        try {
          w.apply(o as never);
          w.check();
        } catch (error) {
          console.error(`FAILED step ${i}`, JSON.stringify(o), (error as Error)?.message ?? error);
          throw new Error(`step ${i} (${JSON.stringify(o)}): ${(error as Error).message}`, { cause: error });
        }
      });
    }),
    { verbose: process.env.ATTACK_VERBOSE_FC === undefined ? 0 : 1, numRuns: RUNS, endOnFailure: process.env.ATTACK_NO_SHRINK !== undefined, seed: process.env.ATTACK_SEED === undefined ? undefined : Number(process.env.ATTACK_SEED), path: process.env.ATTACK_PATH },
  );
  if (process.env.ATTACK_VERBOSE) console.log(`deficits ${deficits}`, [...seen].sort().map(([k, v]) => `${k} ${v}`).join(', '));
  for (const type of ['fill', 'liquidation', 'fundingPayment', 'adl', 'insurance:shortfall', 'transfer', 'margin']) assert.ok((seen.get(type) ?? 0) > 0, `never saw ${type}: ${[...seen]}`);
});
