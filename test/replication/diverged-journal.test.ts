/**
 * A node follows the journal stream only from a journal that is a prefix of it. A data
 * directory written by another primary — as a deposed primary's is when it journaled records it
 * never shipped — is refused with exit 1 and a report naming the divergence, whether the stream
 * does not reach the journal's last seq or holds a different record there; nothing is applied
 * on top of another history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { spawnNode, startNode } from './nodes.ts';

test('a node whose journal is not a prefix of the journal stream refuses to follow it', { timeout: 180_000 }, async () => {
  // A journal of its own: a primary on one NATS server, stopped with its data directory kept.
  const first = await startNats(1);
  const other = await startNode({ nats: first });
  await other.stop(true);

  // An empty stream does not reach its last seq.
  const nats = await startNats(1);
  const empty = await spawnNode({ nats, role: 'replica', dataDir: other.dataDir });
  await assert.rejects(empty.ready, /exited \(exit code 1\)/);
  const report = /Cannot start: this node's journal holds records up to seq (\d+), which the journal stream does not reach \(it ends at seq 0\)/.exec(empty.stderr());
  assert.ok(report !== null, empty.stderr());
  // Its last seq (its clock journaled until it stopped).
  const otherSeq = Number(report[1]);
  assert.ok(otherSeq > 0);

  // A stream written by another primary past that seq holds a different record there.
  const primary = await startNode({ nats });
  const [trader] = await fundedTraders(primary.client, 1, '100000');
  while ((await primary.client.operator('GET', '/operator/state-hash')).json().lastSeq < otherSeq + 2) {
    assert.equal((await trader.place({ price: '90000', quantity: '0.001' })).status, 200);
  }
  const diverged = await spawnNode({ nats, role: 'standby', dataDir: other.dataDir });
  await assert.rejects(diverged.ready, /exited \(exit code 1\)/);
  assert.match(diverged.stderr(), new RegExp(`Cannot start: this node's journal record at seq ${otherSeq} differs from the journal stream's`));
});
