import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeCommand, encodePlace, recordLength, recordMarket } from '../../src/transport/codec.ts';
import { Side, type PlaceOrder } from '../../src/engine/types.ts';
import { kMaxRecordBytes } from '../../src/transport/layout.ts';
import { Ring } from '../../src/transport/ring.ts';
import { RecordingHandler, type Call } from './fixtures/recorders.ts';
import { command, encode, type Command } from './fixtures/arbitrary-records.ts';
import { accountNo, marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

function expectedCall(c: Command): Call {
  switch (c.kind) {
    case 'place':
      return ['place', { ...c.cmd }];
    case 'cancel':
      return ['cancel', c.orderId, c.owner, c.time];
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
  const withClientId = (clientId: string): PlaceOrder => ({ orderId: orderNo(1), owner: ownerNo(2), account: accountNo(2), side: Side.Buy, price: 10, quantity: 1, flags: 0, expiresAt: 0, clientId, position: 0, time: 3 });
  assert.equal(encodePlace(view, bytes, 0, marketNo(1), withClientId('x'.repeat(64))), 80 + 64);
  assert.throws(() => encodePlace(view, bytes, 0, marketNo(1), withClientId('x'.repeat(65))), RangeError);
  assert.throws(() => encodePlace(view, bytes, 0, marketNo(1), withClientId('é'.repeat(33))), RangeError);
  assert.equal(encodePlace(view, bytes, 0, marketNo(1), withClientId('é'.repeat(32))), 80 + 64);
});

test('decodeCommand refuses a record that is not a command', () => {
  const bytes = new Uint8Array(64);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, 18, true);
  assert.throws(() => decodeCommand(view, bytes, 0, new RecordingHandler()), /not a command/);
});
