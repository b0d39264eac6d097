/**
 * Reduce-only against a reference model of positions (issue 13, found 3): generated streams of
 * orders (half of them reduce-only, ladders of small ones included), cancels and ADL moves run
 * on both books. The model knows each owner's true position (what the application's ledger would:
 * a starting position plus every fill plus ADL) and tells the book only what the application does
 * (`PlaceOrder.position` = position less the owner's fills in this book; on ADL the owner's
 * reduce-only orders are cancelled). After every command:
 *  - no fill of a reduce-only order grew its owner's |position| or turned it;
 *  - an owner's resting reduce-only orders close no more than its position, on the closing side.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EngineCode } from '../../src/engine/codes.ts';
import { OrderFlag, type OrderBook, type OwnerIndex, type Side } from '../../src/engine/types.ts';
import { IMPLEMENTATIONS } from './books.ts';
import { RecordingListener, type BookEvent } from './recording-listener.ts';
import { accountNo, orderNo, ownerNo } from '../fixtures/ids.ts';

const OWNERS = [1, 2, 3, 4].map(ownerNo);

/** The model's own rule (not the engine's): lots a `side` order can close of `position`. */
const closableLots = (side: Side, position: number) => (position !== 0 && Math.sign(position) !== side ? Math.abs(position) : 0);

type Step =
  | { kind: 'place'; owner: OwnerIndex; side: Side; price: number; lots: number; reduceOnly: boolean; ioc: boolean }
  | { kind: 'ladder'; owner: OwnerIndex; rungs: number; price: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'adl'; owner: OwnerIndex; lots: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('place' as const), owner: fc.constantFrom(...OWNERS), side: fc.constantFrom<Side>(1, -1), price: fc.integer({ min: 95, max: 105 }), lots: fc.integer({ min: 1, max: 6 }), reduceOnly: fc.boolean(), ioc: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('ladder' as const), owner: fc.constantFrom(...OWNERS), rungs: fc.integer({ min: 2, max: 12 }), price: fc.integer({ min: 95, max: 105 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('adl' as const), owner: fc.constantFrom(...OWNERS), lots: fc.integer({ min: 1, max: 4 }) }) },
);

/** The application's side of the bargain: true positions, and what it tells the book. */
class Model {
  readonly position = new Map<OwnerIndex, number>();
  /** Net lots of each owner's fills in this book (what the ledger has settled). */
  readonly filled = new Map<OwnerIndex, number>();
  readonly reduceOnly = new Set<number>();
  time = 1;
  nextId = 1;

  constructor(start: readonly number[]) {
    OWNERS.forEach((o, i) => this.position.set(o, start[i]));
  }

  offBook(owner: OwnerIndex): number {
    return this.position.get(owner)! - (this.filled.get(owner) ?? 0);
  }

  place(book: OrderBook, owner: OwnerIndex, side: Side, price: number, lots: number, flags: number): number {
    const orderId = this.nextId++;
    if ((flags & OrderFlag.ReduceOnly) !== 0) this.reduceOnly.add(orderId);
    return book.place({ orderId: orderNo(orderId), owner, account: accountNo(owner), side, price, quantity: lots, flags, expiresAt: 0, clientId: null, position: this.offBook(owner), time: ++this.time });
  }

  /** Settles the book's fills as the ledger would, checking each reduce-only side. */
  settle(events: BookEvent[]): void {
    for (const e of events) {
      if (e.type !== 'fill') continue;
      for (const [owner, orderId, side] of [[e.makerOwner, e.maker, -e.takerSide], [e.takerOwner, e.taker, e.takerSide]] as const) {
        const before = this.position.get(owner)!;
        const after = before + side * e.quantity;
        this.position.set(owner, after);
        this.filled.set(owner, (this.filled.get(owner) ?? 0) + side * e.quantity);
        if (this.reduceOnly.has(orderId)) {
          assert.ok(Math.abs(after) <= Math.abs(before) && Math.sign(after) * Math.sign(before) >= 0, `reduce-only order ${orderId} of owner ${owner} took the position from ${before} to ${after}`);
        }
      }
    }
  }

  /** Resting reduce-only orders of each owner close no more than its position. */
  checkResting(book: OrderBook): void {
    for (const owner of OWNERS) {
      const mine = book.ordersOf(owner).filter((o) => (o.flags & OrderFlag.ReduceOnly) !== 0);
      const p = this.position.get(owner)!;
      let lots = 0;
      for (const o of mine) {
        assert.ok(closableLots(o.side, p) > 0, `owner ${owner} rests reduce-only order ${o.orderId} (side ${o.side}) with position ${p}`);
        lots += o.remaining;
      }
      assert.ok(lots <= Math.abs(p), `owner ${owner} rests ${lots} reduce-only lots against a position of ${p}`);
    }
  }
}

for (const impl of IMPLEMENTATIONS) {
  test(`${impl.name}: reduce-only never opens or flips a position, and resting reduce-only lots stay within it (model-checked)`, () => {
    let reduceOnlyFills = 0;
    let cancelledAtFill = 0;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -10, max: 10 }), { minLength: 4, maxLength: 4 }), fc.array(step, { minLength: 50, maxLength: 300 }), (start, steps) => {
        const events = new RecordingListener();
        const book = impl.create(events);
        const model = new Model(start);
        for (const s of steps) {
          if (s.kind === 'place') {
            const flags = (s.reduceOnly ? OrderFlag.ReduceOnly : 0) | (s.ioc ? OrderFlag.ImmediateOrCancel : 0);
            model.place(book, s.owner, s.side, s.side === 1 ? s.price - 2 : s.price + 2, s.lots, flags);
          } else if (s.kind === 'ladder') {
            // The ladder: many small reduce-only orders closing the position, one tick apart.
            const p = model.position.get(s.owner)!;
            const side: Side = p > 0 ? -1 : 1;
            for (let i = 0; i < s.rungs; i++) model.place(book, s.owner, side, s.price + side * -i, 1, OrderFlag.ReduceOnly);
          } else if (s.kind === 'cancel') {
            const live = book.snapshot().orders;
            if (live.length > 0) {
              const o = live[s.pick % live.length];
              book.cancel(o.orderId, o.owner, ++model.time);
            }
          } else {
            // ADL closes part of the position outside the book; the application cancels the owner's reduce-only orders.
            const p = model.position.get(s.owner)!;
            if (p === 0) continue;
            const lots = Math.min(s.lots, Math.abs(p));
            for (const o of book.ordersOf(s.owner)) if ((o.flags & OrderFlag.ReduceOnly) !== 0) book.cancel(o.orderId, s.owner, ++model.time);
            model.position.set(s.owner, p - Math.sign(p) * lots);
          }
          const out = events.take();
          model.settle(out);
          for (const e of out) {
            if (e.type === 'fill' && (model.reduceOnly.has(e.maker) || model.reduceOnly.has(e.taker))) reduceOnlyFills++;
            if (e.type === 'cancelled' && e.reason === 6) cancelledAtFill++;
          }
          book.validateInternalState();
          model.checkResting(book);
        }
      }),
      { numRuns: 150 },
    );
    assert.ok(reduceOnlyFills > 500, `only ${reduceOnlyFills} reduce-only fills`);
    assert.ok(cancelledAtFill > 50, `only ${cancelledAtFill} reduce-only orders cancelled for no longer fitting`);
  });
}

test('the issue\'s reproduction: 60 reduce-only sells of 1 lot against a 1-lot long: one is accepted, one fills, the position ends flat', () => {
  for (const impl of IMPLEMENTATIONS) {
    const events = new RecordingListener();
    const book = impl.create(events);
    const model = new Model([1, 0, 0, 0]);
    const codes = Array.from({ length: 60 }, (_, i) => model.place(book, OWNERS[0], -1, 100 + i, 1, OrderFlag.ReduceOnly));
    assert.equal(codes.filter((c) => c === EngineCode.Ok).length, 1, impl.name);
    assert.equal(codes.filter((c) => c === EngineCode.ReduceOnlyWouldIncrease).length, 59, impl.name);
    model.place(book, OWNERS[1], 1, 200, 60, OrderFlag.ImmediateOrCancel);
    model.settle(events.take());
    assert.equal(model.position.get(OWNERS[0]), 0, impl.name);
    assert.equal(book.size, 0, impl.name);
  }
});
