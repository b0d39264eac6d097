/**
 * A node follows the journal stream only from a journal that is a prefix of it. A data
 * directory written by another primary — as a deposed primary's is when it journaled records it
 * never shipped — is refused with exit 1 and a report naming the divergence, whether the stream
 * does not reach the journal's last seq or holds a different record there; nothing is applied
 * on top of another history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fundedTraders } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { spawnNode, startNode } from './nodes.ts';

test('a node whose journal is not a prefix of the journal stream refuses to follow it', { timeout: 180_000 }, async () => {
  // Three NATS servers: one for the journal of another history, one whose stream stays empty,
  // one for the stream this test's primary writes.
  const [first, unwritten, nats] = await Promise.all([startNats(1), startNats(1), startNats(1)]);
  // A journal of its own: a primary on the first server, stopped with its data directory kept
  // (meanwhile the primary that writes the third stream starts).
  const [other, primary] = await Promise.all([startNode({ nats: first }), startNode({ nats })]);
  await other.stop(true);
  // Its last seq (its clock journaled until it stopped).
  const otherSeq: number = other.logged('stopped')!.lastSeq;
  assert.ok(otherSeq > 0);
  // The two nodes below refuse it side by side, each on its own copy (a node locks its data directory).
  const copy = mkdtempSync(join(tmpdir(), 'perp-diverged-'));
  cpSync(other.dataDir, copy, { recursive: true });

  // An empty stream does not reach its last seq.
  const empty = await spawnNode({ nats: unwritten, role: 'replica', dataDir: other.dataDir });

  // A stream written by another primary past that seq holds a different record there.
  const [trader] = await fundedTraders(primary.client, 1, '100000');
  while ((await primary.client.operator('GET', '/operator/state-hash')).json().lastSeq < otherSeq + 2) {
    assert.equal((await trader.place({ price: '90000', quantity: '0.001' })).status, 200);
  }
  const diverged = await spawnNode({ nats, role: 'standby', dataDir: copy });

  await assert.rejects(empty.ready, /exited \(exit code 1\)/);
  assert.match(empty.stderr(), new RegExp(`Cannot start: this node's journal holds records up to seq ${otherSeq}, which the journal stream does not reach \\(it ends at seq 0\\)`));
  await assert.rejects(diverged.ready, /exited \(exit code 1\)/);
  assert.match(diverged.stderr(), new RegExp(`Cannot start: this node's journal record at seq ${otherSeq} differs from the journal stream's`));
});
