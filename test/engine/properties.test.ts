/**
 * Property tests: random command streams run against FastOrderBook and the NaiveOrderBook
 * reference. After every command both must have emitted the same events, returned the same
 * code, and agree on best prices, depth and stateHash; both must pass validateInternalState.
 * Streams cover places (GTC, IOC, post-only, reduce-only, clientIds, expiry, same-account
 * crossing, invalid input, duplicate ids), cancels (by id, all), the expire
 * timer, and time moving forward. ENGINE_RUNS streams of 1,000 commands: 40 in `npm test`, 250 in
 * `npm run test:scale` (test/run.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Reason } from '../../src/engine/codes.ts';
import { FastOrderBook } from '../../src/engine/fast-book.ts';
import { NaiveOrderBook } from '../../src/engine/naive-book.ts';
import type { OrderBook, OwnerIndex, PlaceOrder, Side } from '../../src/engine/types.ts';
import { MARKET } from './books.ts';
import { RecordingListener } from './recording-listener.ts';
import { accountNo, orderNo, ownerNo } from '../fixtures/ids.ts';

/** Owners and the account each belongs to: owners 1 and 2 share account 100, 4 and 5 share 300. */
const ACCOUNT_OF = [0, 100, 100, 200, 300, 300].map(accountNo);
const CLIENT_IDS = ['a', 'b', 'c'];
const REASONS = [Reason.Cancelled, Reason.ExchangeCancelled, Reason.ReduceOnlyCancelled];

type Command =
  | { kind: 'place'; dt: number; idBack: number; owner: OwnerIndex; side: Side; price: number; quantity: number; flags: number; expiresIn: number; clientId: number; position: number }
  | { kind: 'cancel'; dt: number; pick: number; wrongOwner: boolean }
  | { kind: 'cancelMissing'; dt: number; idBack: number; owner: OwnerIndex }
  | { kind: 'cancelAll'; dt: number; owner: OwnerIndex; reason: number }
  | { kind: 'expire'; dt: number };

const dt = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 5 }) });
const owner = fc.integer({ min: 1, max: 5 }).map(ownerNo);

const placeCommand = fc.record({
  kind: fc.constant('place' as const),
  dt,
  /** 0 = a fresh id; k > 0 = the id k places back (maybe live: OrderIdExists). */
  idBack: fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 20 }) }),
  owner,
  side: fc.constantFrom<Side>(1, -1),
  /** Buys land 4 ticks lower and sells 4 higher, so books build depth and still cross often. */
  price: fc.integer({ min: 94, max: 106 }),
  quantity: fc.oneof({ weight: 30, arbitrary: fc.integer({ min: 1, max: 12 }) }, { weight: 1, arbitrary: fc.constantFrom(0, -3, 2.5, 2 ** 53) }),
  flags: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.integer({ min: 0, max: 7 }) }),
  /** 0 = GTC; > 0 = expires that many ms ahead; < 0 = already expired. */
  expiresIn: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: 1, max: 300 }) }, { weight: 1, arbitrary: fc.integer({ min: -5, max: 0 }) }),
  clientId: fc.oneof({ weight: 3, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }) }),
  position: fc.integer({ min: -8, max: 8 }),
});

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 50, arbitrary: placeCommand },
  { weight: 18, arbitrary: fc.record({ kind: fc.constant('cancel' as const), dt, pick: fc.nat(), wrongOwner: fc.integer({ min: 0, max: 4 }).map((n) => n === 0) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('cancelMissing' as const), dt, idBack: fc.integer({ min: 0, max: 30 }), owner }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancelAll' as const), dt, owner, reason: fc.constantFrom(...REASONS) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('expire' as const), dt }) },
);

/** Turns generated commands into concrete calls; live orders are picked from the reference book. */
class Driver {
  time = 1_000;
  nextId = 1;

  /** Runs one command on every book; returns each book's result. */
  run(cmd: Command, reference: OrderBook, books: OrderBook[]): number[] {
    this.time += cmd.dt;
    const time = this.time;
    switch (cmd.kind) {
      case 'place': {
        const orderId = cmd.idBack === 0 ? this.nextId++ : Math.max(1, this.nextId - cmd.idBack);
        const place: PlaceOrder = {
          orderId: orderNo(orderId),
          owner: cmd.owner,
          account: ACCOUNT_OF[cmd.owner],
          side: cmd.side,
          price: cmd.side === 1 ? cmd.price - 4 : cmd.price + 4,
          quantity: cmd.quantity,
          flags: cmd.flags,
          expiresAt: cmd.expiresIn === 0 ? 0 : time + cmd.expiresIn,
          clientId: cmd.clientId < 0 ? null : CLIENT_IDS[cmd.clientId],
          position: cmd.position,
          time,
        };
        return books.map((b) => b.place(place));
      }
      case 'cancel': {
        const live = reference.snapshot().orders;
        if (live.length === 0) return books.map((b) => b.expire(time));
        const target = live[cmd.pick % live.length];
        const by = cmd.wrongOwner ? ownerNo((target.owner % 5) + 1) : target.owner;
        return books.map((b) => b.cancel(target.orderId, by, time));
      }
      case 'cancelMissing':
        return books.map((b) => b.cancel(orderNo(Math.max(1, this.nextId - cmd.idBack)), cmd.owner, time));
      case 'cancelAll':
        return books.map((b) => b.cancelAll(cmd.owner, time, cmd.reason));
      case 'expire':
        return books.map((b) => b.expire(time));
    }
  }
}

function assertSameBooks(fast: OrderBook, naive: OrderBook, step: number): void {
  assert.equal(fast.sequence, naive.sequence, `sequence after step ${step}`);
  assert.equal(fast.size, naive.size, `size after step ${step}`);
  assert.equal(fast.bestBid(), naive.bestBid(), `best bid after step ${step}`);
  assert.equal(fast.bestAsk(), naive.bestAsk(), `best ask after step ${step}`);
  for (const side of [1, -1] as const) {
    assert.deepEqual(fast.depth(side, 5, 1), naive.depth(side, 5, 1), `depth ${side} after step ${step}`);
    assert.deepEqual(fast.depth(side, 3, 4), naive.depth(side, 3, 4), `grouped depth ${side} after step ${step}`);
  }
  assert.equal(fast.stateHash(), naive.stateHash(), `stateHash after step ${step}`);
}

const RUNS = Number(process.env.ENGINE_RUNS ?? 40);
const COMMANDS_PER_RUN = 1_000;
let commandsRun = 0;

test(`fast and naive books agree event by event on ${RUNS} random streams of ${COMMANDS_PER_RUN} commands`, () => {
  fc.assert(
    fc.property(fc.array(command, { minLength: COMMANDS_PER_RUN, maxLength: COMMANDS_PER_RUN }), (commands) => {
      const fastEvents = new RecordingListener();
      const naiveEvents = new RecordingListener();
      const fast = new FastOrderBook(MARKET, fastEvents, { minSizeLots: 1 });
      const naive = new NaiveOrderBook(MARKET, naiveEvents, { minSizeLots: 1 });
      const driver = new Driver();
      commands.forEach((cmd, step) => {
        const [fastCode, naiveCode] = driver.run(cmd, naive, [fast, naive]);
        assert.equal(fastCode, naiveCode, `result of step ${step} (${cmd.kind})`);
        assert.deepEqual(fastEvents.take(), naiveEvents.take(), `events of step ${step} (${cmd.kind})`);
        fast.validateInternalState();
        naive.validateInternalState();
        assertSameBooks(fast, naive, step);
        commandsRun++;
      });
    }),
    { numRuns: RUNS },
  );
  assert.ok(commandsRun >= RUNS * COMMANDS_PER_RUN, `ran ${commandsRun} commands`);
});

test('the same commands twice give the same events and the same hash', () => {
  fc.assert(
    fc.property(fc.array(command, { minLength: 300, maxLength: 600 }), (commands) => {
      const outcomes = [0, 1].map(() => {
        const events = new RecordingListener();
        const book = new FastOrderBook(MARKET, events);
        const driver = new Driver();
        const codes = commands.map((cmd) => driver.run(cmd, book, [book])[0]);
        return { codes, events: events.events, hash: book.stateHash() };
      });
      assert.deepEqual(outcomes[0], outcomes[1]);
    }),
    { numRuns: 20 },
  );
});

test('a book snapshotted mid-stream and restored continues exactly like the uninterrupted one', () => {
  fc.assert(
    fc.property(fc.array(command, { minLength: 200, maxLength: 600 }), fc.nat(), (commands, cut) => {
      const at = cut % commands.length;
      for (const Book of [FastOrderBook, NaiveOrderBook]) {
        const events = new RecordingListener();
        const whole = new Book(MARKET, events);
        const driver = new Driver();
        commands.slice(0, at).forEach((cmd) => driver.run(cmd, whole, [whole]));
        const restoredEvents = new RecordingListener();
        const restored = Book.restore(JSON.parse(JSON.stringify(whole.snapshot())), restoredEvents);
        assert.equal(restored.stateHash(), whole.stateHash());
        events.take();
        for (const cmd of commands.slice(at)) {
          const [a, b] = driver.run(cmd, whole, [whole, restored]);
          assert.equal(b, a);
        }
        assert.deepEqual(restoredEvents.events, events.events);
        assert.equal(restored.stateHash(), whole.stateHash());
        restored.validateInternalState();
      }
    }),
    { numRuns: 20 },
  );
});
