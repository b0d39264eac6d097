import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { PlaceOrder } from '../../src/engine/types.ts';
import { decodeCommand, encodeCancel, encodeCancelAll, encodeCancelByClientId, encodeExpire, encodePlace, recordLength, recordMarket } from '../../src/runtime/codec.ts';
import { kMaxRecordBytes } from '../../src/runtime/layout.ts';
import { Ring } from '../../src/runtime/ring.ts';
import { RecordingHandler, type Call } from './fixtures/recorders.ts';

const id = fc.maxSafeInteger();
const signed = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
const side = fc.constantFrom<1 | -1>(1, -1);
const market = fc.integer({ min: 0, max: 0xffffffff });
/** Any clientId of at most 64 UTF-8 bytes: ASCII up to the limit, or any Unicode. */
const clientId = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 64 }),
  fc.string({ unit: 'binary', maxLength: 16 }).filter((s) => Buffer.byteLength(s) <= 64),
);
const place: fc.Arbitrary<PlaceOrder> = fc.record({
  orderId: id,
  owner: id,
  account: id,
  side,
  price: id,
  quantity: id,
  flags: fc.integer({ min: 0, max: 7 }),
  expiresAt: id,
  clientId: fc.option(clientId, { nil: null }),
  position: signed,
  time: id,
});

type Command =
  | { kind: 'place'; market: number; cmd: PlaceOrder }
  | { kind: 'cancel'; market: number; orderId: number; owner: number; time: number }
  | { kind: 'cancelByClientId'; market: number; account: number; clientId: string; time: number }
  | { kind: 'cancelAll'; market: number; owner: number; time: number; reason: number }
  | { kind: 'expire'; market: number; time: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('place' as const), market, cmd: place }),
  fc.record({ kind: fc.constant('cancel' as const), market, orderId: id, owner: id, time: id }),
  fc.record({ kind: fc.constant('cancelByClientId' as const), market, account: id, clientId, time: id }),
  fc.record({ kind: fc.constant('cancelAll' as const), market, owner: id, time: id, reason: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ kind: fc.constant('expire' as const), market, time: id }),
);

function encode(view: DataView, bytes: Uint8Array, offset: number, c: Command): number {
  switch (c.kind) {
    case 'place':
      return encodePlace(view, bytes, offset, c.market, c.cmd);
    case 'cancel':
      return encodeCancel(view, offset, c.market, c.orderId, c.owner, c.time);
    case 'cancelByClientId':
      return encodeCancelByClientId(view, bytes, offset, c.market, c.account, c.clientId, c.time);
    case 'cancelAll':
      return encodeCancelAll(view, offset, c.market, c.owner, c.time, c.reason);
    case 'expire':
      return encodeExpire(view, offset, c.market, c.time);
  }
}

function expectedCall(c: Command): Call {
  switch (c.kind) {
    case 'place':
      return ['place', { ...c.cmd }];
    case 'cancel':
      return ['cancel', c.orderId, c.owner, c.time];
    case 'cancelByClientId':
      return ['cancelByClientId', c.account, c.clientId, c.time];
    case 'cancelAll':
      return ['cancelAll', c.owner, c.time, c.reason];
    case 'expire':
      return ['expire', c.time];
  }
}

test('every command survives encode → ring slot → decode exactly, market and length included', () => {
  const ring = Ring.create(64);
  fc.assert(
    fc.property(fc.array(command, { maxLength: 64 }), (commands) => {
      for (const c of commands) {
        const offset = ring.tryClaim();
        const length = encode(ring.view, ring.bytes, offset, c);
        assert.ok(length <= kMaxRecordBytes);
        assert.equal(recordLength(ring.view, offset), length);
        ring.commit();
      }
      ring.publish();
      const handler = new RecordingHandler();
      const markets: number[] = [];
      ring.drain((view, offset) => {
        markets.push(recordMarket(view, offset));
        decodeCommand(view, ring.bytes, offset, handler);
      });
      assert.deepEqual(handler.calls, commands.map(expectedCall));
      assert.deepEqual(markets, commands.map((c) => c.market));
    }),
    { numRuns: 300 },
  );
});

test('a clientId longer than 64 UTF-8 bytes is refused, 64 is accepted', () => {
  const bytes = new Uint8Array(kMaxRecordBytes * 2);
  const view = new DataView(bytes.buffer);
  assert.equal(encodeCancelByClientId(view, bytes, 0, 1, 2, 'x'.repeat(64), 3), 32 + 64);
  assert.throws(() => encodeCancelByClientId(view, bytes, 0, 1, 2, 'x'.repeat(65), 3), RangeError);
  assert.throws(() => encodeCancelByClientId(view, bytes, 0, 1, 2, 'é'.repeat(33), 3), RangeError);
  assert.equal(encodeCancelByClientId(view, bytes, 0, 1, 2, 'é'.repeat(32), 3), 32 + 64);
});

test('decodeCommand refuses a record that is not a command', () => {
  const bytes = new Uint8Array(64);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, 18, true);
  assert.throws(() => decodeCommand(view, bytes, 0, new RecordingHandler()), /not a command/);
});
