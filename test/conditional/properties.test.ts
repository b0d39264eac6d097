/**
 * Property tests: random command streams (mark paths, takeProfit / stopLoss / trailingStop
 * placements, TP/SL pairs on positions and on parents, fills, parents leaving, position
 * changes, cancels, timers with expiries) run against the book with its fast trigger index and
 * with the naive scan-every-order reference. After every command both must have returned the
 * same code and emitted the same outputs (so the same orders fire at the same mark updates),
 * and agree on stateHash; both must pass validateInternalState. Mid-stream the fast book is
 * snapshotted, restored and continues as the restored copy: a restart must change nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ConditionalBook } from '../../src/conditional/conditional-book.ts';
import { ConditionalReason } from '../../src/conditional/codes.ts';
import { TriggerKind } from '../../src/conditional/types.ts';
import type { PlaceTrigger } from '../../src/conditional/types.ts';
import { MARKET } from './books.ts';
import { RecordingListener } from './recording-listener.ts';
import { NO_ORDER, NO_OWNER, type OwnerIndex } from '../../src/types/ids.ts';
import { accountNo, orderNo, ownerNo } from '../fixtures/ids.ts';

const OWNERS = [1, 2, 3].map(ownerNo);
const PARENTS = [901, 902, 903];

type Command =
  | { kind: 'mark'; dt: number; mark: number }
  | { kind: 'place'; dt: number; owner: OwnerIndex; type: TriggerKind; side: 1 | -1; trigger: number; percent: number; expiresIn: number; reuseId: boolean }
  | { kind: 'pair'; dt: number; owner: OwnerIndex; side: 1 | -1; tp: number; sl: number; quantity: number; parent: number; position: number; settled: number }
  | { kind: 'fill'; dt: number; parent: number; quantity: number; remaining: number }
  | { kind: 'gone'; dt: number; parent: number }
  | { kind: 'position'; dt: number; owner: OwnerIndex; lots: number }
  | { kind: 'cancel'; dt: number; pick: number; wrongOwner: boolean }
  | { kind: 'time'; dt: number }
  | { kind: 'restart'; dt: number };

const dt = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 40 }) });
const owner = fc.constantFrom(...OWNERS);
const side = fc.constantFrom<1 | -1>(1, -1);
/** Percents from a small set (shared anchors and ties) and anywhere in (0, 30 %). */
const percent = fc.oneof(fc.constantFrom(1_000_000, 2_000_000, 5_000_000, 10_000_000), fc.integer({ min: 1, max: 30_000_000 }));
const price = fc.integer({ min: 80, max: 120 });

function commands(markWeight: number, trailingWeight: number): fc.Arbitrary<Command[]> {
  const type = fc.oneof(
    { weight: 2, arbitrary: fc.constant<TriggerKind>(TriggerKind.TakeProfit) },
    { weight: 2, arbitrary: fc.constant<TriggerKind>(TriggerKind.StopLoss) },
    { weight: trailingWeight, arbitrary: fc.constant<TriggerKind>(TriggerKind.TrailingStop) },
  );
  const command: fc.Arbitrary<Command> = fc.oneof(
    { weight: markWeight, arbitrary: fc.record({ kind: fc.constant('mark' as const), dt, mark: fc.oneof({ weight: 9, arbitrary: price }, { weight: 1, arbitrary: fc.constantFrom(1, 0, 10_000) }) }) },
    { weight: 12, arbitrary: fc.record({ kind: fc.constant('place' as const), dt, owner, type, side, trigger: price, percent, expiresIn: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }) }), reuseId: fc.integer({ min: 0, max: 15 }).map((n) => n === 0) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('pair' as const), dt, owner, side, tp: price, sl: price, quantity: fc.integer({ min: 1, max: 9 }), parent: fc.oneof(fc.constant(0), fc.constantFrom(...PARENTS)), position: fc.integer({ min: -6, max: 6 }), settled: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 5 }) }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('fill' as const), dt, parent: fc.constantFrom(...PARENTS), quantity: fc.integer({ min: 1, max: 5 }), remaining: fc.integer({ min: 0, max: 3 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('gone' as const), dt, parent: fc.constantFrom(...PARENTS) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('position' as const), dt, owner, lots: fc.integer({ min: -3, max: 3 }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('cancel' as const), dt, pick: fc.nat(), wrongOwner: fc.integer({ min: 0, max: 5 }).map((n) => n === 0) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('time' as const), dt }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), dt }) },
  );
  return fc.array(command, { minLength: 30, maxLength: 150, size: 'max' });
}

/** Applies one command to a book; ids come from the stream's own counter, picks from the reference's state. */
class Driver {
  time = 1_000;
  nextId = 1;
  nextGroup = 1;

  cancelId = NO_ORDER;
  cancelOwner = NO_OWNER;

  /** Before a command goes to the books: pick the order a cancel names, from the state they share. */
  prepare(c: Command, reference: ConditionalBook): void {
    if (c.kind !== 'cancel') return;
    const live = reference.snapshot().triggers;
    const o = live.length === 0 ? { orderId: orderNo(12345), owner: ownerNo(1) } : live[c.pick % live.length];
    this.cancelId = o.orderId;
    this.cancelOwner = c.wrongOwner ? ownerNo(o.owner + 100) : o.owner;
  }

  apply(book: ConditionalBook, c: Command): number {
    const t = this.time;
    switch (c.kind) {
      case 'mark':
        return book.onMark(c.mark, t);
      case 'place': {
        const orderId = c.reuseId && this.nextId > 1 ? this.nextId - 1 : this.nextId;
        return book.place(trigger(orderId, c.owner, c.type, c.side, c.trigger, c.type === TriggerKind.TrailingStop ? c.percent : 0, c.expiresIn === 0 ? 0 : t + c.expiresIn, t));
      }
      case 'pair':
        return book.placePair({
          ocoGroupId: orderNo(this.nextGroup),
          takeProfit: trigger(this.nextId, c.owner, TriggerKind.TakeProfit, c.side, c.tp, 0, 0, t, c.quantity),
          stopLoss: trigger(this.nextId + 1, c.owner, TriggerKind.StopLoss, c.side, c.sl, 0, 0, t, c.quantity + 1),
          parentOrderId: orderNo(c.parent),
          parent: c.parent === 0 ? undefined : { orderId: orderNo(c.parent), owner: c.owner, side: -c.side as 1 | -1, filled: c.settled },
          position: c.position,
          time: t,
        });
      case 'fill':
        return book.onFill(orderNo(c.parent), c.quantity, c.remaining, t);
      case 'gone':
        return book.onOrderGone(orderNo(c.parent), t);
      case 'position':
        return book.onPosition(c.owner, c.lots, t);
      case 'cancel':
        return book.cancel(this.cancelId, this.cancelOwner, t);
      case 'time':
        return book.onTime(t);
      case 'restart':
        return 0;
    }
  }

  /** After a command has gone to every book: move ids and time on. */
  advance(c: Command): void {
    this.time += c.dt;
    if (c.kind === 'place') this.nextId++;
    if (c.kind === 'pair') {
      this.nextId += 2;
      this.nextGroup++;
    }
  }
}

function trigger(orderId: number, owner: OwnerIndex, kind: TriggerKind, side: 1 | -1, triggerPrice: number, percent: number, expiresAt: number, time: number, quantity = 3): PlaceTrigger {
  return {
    orderId: orderNo(orderId), owner, account: accountNo(owner), side, price: 100, quantity, flags: 0, expiresAt, clientId: null, kind,
    triggerPrice: kind === TriggerKind.TrailingStop ? 0 : triggerPrice, trailingPercent: BigInt(percent), time,
  };
}

function run(stream: Command[]): { released: number } {
  const fastEvents = new RecordingListener();
  const naiveEvents = new RecordingListener();
  let fast = new ConditionalBook(MARKET, fastEvents, { index: 'fast' });
  const naive = new ConditionalBook(MARKET, naiveEvents, { index: 'naive' });
  const driver = new Driver();
  let released = 0;
  stream.forEach((c, step) => {
    if (c.kind === 'restart') {
      fast = ConditionalBook.restore(JSON.parse(JSON.stringify(fast.snapshot())), fastEvents, { index: 'fast' });
    }
    driver.prepare(c, naive);
    const expected = driver.apply(naive, c);
    const actual = driver.apply(fast, c);
    driver.advance(c);
    const expectedEvents = naiveEvents.take();
    assert.equal(actual, expected, `step ${step} (${c.kind}): code`);
    assert.deepEqual(fastEvents.take(), expectedEvents, `step ${step} (${c.kind}): outputs`);
    assert.deepEqual(fastEvents.triggerPrices.splice(0), naiveEvents.triggerPrices.splice(0), `step ${step} (${c.kind}): trigger prices fired at`);
    released += expectedEvents.filter((e) => e.type === 'release').length;
    fast.validateInternalState();
    naive.validateInternalState();
    assert.equal(fast.stateHash(), naive.stateHash(), `step ${step} (${c.kind}): state`);
  });
  return { released };
}

test('the fast index fires the same orders at the same commands as the naive scan (mixed commands)', () => {
  let released = 0;
  fc.assert(fc.property(commands(10, 2), (stream) => {
    released += run(stream).released;
  }), { numRuns: 150 });
  assert.ok(released > 500, `the streams fire orders (${released})`);
});

test('the fast index matches the naive scan on long mark paths over many trailing stops', () => {
  let released = 0;
  fc.assert(fc.property(commands(20, 6), (stream) => {
    released += run(stream).released;
  }), { numRuns: 100 });
  assert.ok(released > 500, `the streams fire orders (${released})`);
});

test('every kind of ending shows up in the streams (the generators reach them)', () => {
  const reasons = new Set<number>();
  fc.assert(fc.property(commands(10, 2), (stream) => {
    const events = new RecordingListener();
    const book = new ConditionalBook(MARKET, events);
    const driver = new Driver();
    for (const c of stream) {
      driver.prepare(c, book);
      driver.apply(book, c);
      driver.advance(c);
    }
    for (const e of events.take()) if (e.type === 'cancelled') reasons.add(e.reason);
  }), { numRuns: 150, seed: 42 });
  for (const reason of [ConditionalReason.Cancelled, ConditionalReason.ExpiresAtReached, ConditionalReason.OcoTriggered, ConditionalReason.ParentCancelled, ConditionalReason.PositionClosed]) {
    assert.ok(reasons.has(reason), `reason ${reason} reached`);
  }
});
