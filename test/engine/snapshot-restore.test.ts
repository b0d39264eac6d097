import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineCode } from '../../src/engine/codes.ts';
import { bookTest, IMPLEMENTATIONS, placeAll } from './books.ts';
import { ALICE, BOB, CAROL, T0, limit } from './fixtures.ts';
import { RecordingListener } from './recording-listener.ts';
import { orderNo } from '../fixtures/ids.ts';

const RESTING = [
  limit(ALICE, 1, 1, 5, 10, { clientId: 'x' }),
  limit(BOB, 2, 1, 2, 10),
  limit(CAROL, 3, 1, 1, 9, { expiresAt: T0 + 100 }),
  limit(BOB, 4, -1, 3, 12),
  limit(ALICE, 5, -1, 1, 11),
  limit(CAROL, 6, -1, 4, 11),
];
const AFTER = [limit(CAROL, 7, -1, 6, 9), limit(BOB, 8, 1, 9, 12)];

bookTest('a snapshot lists bids best first, then asks best first, FIFO within a price', ({ book }) => {
  placeAll(book, ...RESTING);
  const snapshot = book.snapshot();
  assert.equal(snapshot.sequence, book.sequence);
  assert.deepEqual(snapshot.orders.map((o) => o.orderId), [1, 2, 3, 5, 6, 4]);
  assert.deepEqual(snapshot.orders[0], book.order(orderNo(1)));
});

bookTest('a restored book has the same hash and the same future', ({ book, events, impl }) => {
  placeAll(book, ...RESTING);
  const copy = JSON.parse(JSON.stringify(book.snapshot()));
  const restoredEvents = new RecordingListener();
  const restored = impl.restore(copy, restoredEvents);
  assert.equal(restored.stateHash(), book.stateHash());
  assert.equal(restored.sequence, book.sequence);
  events.take();
  // The clientId index is rebuilt: the resting order's clientId is still taken.
  const sameClientId = limit(ALICE, 9, 1, 1, 8, { clientId: 'x' });
  assert.equal(book.place(sameClientId), EngineCode.ClientIdExists);
  assert.equal(restored.place(sameClientId), EngineCode.ClientIdExists);
  placeAll(book, ...AFTER);
  placeAll(restored, ...AFTER);
  book.expire(T0 + 100);
  restored.expire(T0 + 100);
  assert.deepEqual(restoredEvents.take(), events.take());
  assert.equal(restored.stateHash(), book.stateHash());
  assert.deepEqual(restored.snapshot(), book.snapshot());
});

bookTest('the hash changes when the state does', ({ book }) => {
  const empty = book.stateHash();
  book.place(RESTING[0]);
  const one = book.stateHash();
  assert.notEqual(one, empty);
  book.cancel(orderNo(1), ALICE.owner, T0);
  assert.notEqual(book.stateHash(), empty, 'the sequence moved on');
  assert.notEqual(book.stateHash(), one);
});

bookTest('restoring a crossed snapshot throws, naming the invariant', ({ book, impl }) => {
  placeAll(book, ...RESTING);
  const snapshot = book.snapshot();
  snapshot.orders[0].price = 20;
  assert.throws(() => impl.restore(snapshot, new RecordingListener()), /crossed/);
});

test('both implementations give the same hash and snapshot for the same commands, and restore each other', () => {
  const [fast, naive] = IMPLEMENTATIONS.map((impl) => placeAll(impl.create(new RecordingListener()), ...RESTING, ...AFTER));
  assert.equal(fast.stateHash(), naive.stateHash());
  assert.deepEqual(fast.snapshot(), naive.snapshot());
  const fastFromNaive = IMPLEMENTATIONS[0].restore(naive.snapshot(), new RecordingListener());
  assert.equal(fastFromNaive.stateHash(), naive.stateHash());
});

bookTest('restoring a snapshot with a broken invariant throws, naming it', ({ book, impl }) => {
  placeAll(book, ...RESTING);
  const broken = [
    { change: (o: ReturnType<typeof book.snapshot>['orders']) => { o[1].remaining = 0; }, names: /remaining 0/ },
    { change: (o: ReturnType<typeof book.snapshot>['orders']) => { o[1].remaining = o[1].quantity + 1; }, names: /exceeds quantity/ },
    { change: (o: ReturnType<typeof book.snapshot>['orders']) => { o[1].orderId = o[0].orderId; }, names: /order 1: id/ },
    { change: (o: ReturnType<typeof book.snapshot>['orders']) => { o[4].clientId = 'x'; o[4].account = o[0].account; }, names: /clientId/ },
  ];
  for (const { change, names } of broken) {
    const snapshot = book.snapshot();
    change(snapshot.orders);
    assert.throws(() => impl.restore(snapshot, new RecordingListener()), names);
  }
});
