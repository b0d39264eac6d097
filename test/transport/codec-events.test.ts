import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BookEventWriter, RecordBuffer, decodeEvent, recordLength, recordMarket, ringSink } from '../../src/transport/codec.ts';
import { Ring } from '../../src/transport/ring.ts';
import { RecordingListener, replayCalls } from './fixtures/recorders.ts';
import { event } from './fixtures/arbitrary-records.ts';
import { marketNo } from '../fixtures/ids.ts';

test('every book event survives BookEventWriter → RecordBuffer → decodeEvent exactly', () => {
  fc.assert(
    fc.property(fc.array(event, { maxLength: 200 }), fc.integer({ min: 0, max: 0xffffffff }).map(marketNo), (calls, market) => {
      const buffer = new RecordBuffer(16); // starts tiny: growth is part of the test
      replayCalls(calls, new BookEventWriter(buffer, market));
      assert.equal(buffer.count, calls.length);
      const listener = new RecordingListener();
      let count = 0;
      for (let at = 0; at < buffer.length; at += recordLength(buffer.view, at), count++) {
        assert.equal(recordMarket(buffer.view, at), market);
        decodeEvent(buffer.view, at, listener);
      }
      assert.equal(count, calls.length);
      assert.deepEqual(listener.calls, calls);
    }),
    { numRuns: 300 },
  );
});

test('book events written straight into a ring slot decode the same', () => {
  const ring = Ring.create(256);
  fc.assert(
    fc.property(fc.array(event, { maxLength: 256 }), (calls) => {
      replayCalls(calls, new BookEventWriter(ringSink(ring), marketNo(7)));
      ring.publish();
      const listener = new RecordingListener();
      ring.drain((view, offset) => decodeEvent(view, offset, listener));
      assert.deepEqual(listener.calls, calls);
    }),
    { numRuns: 200 },
  );
});
