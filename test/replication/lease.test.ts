/**
 * The lease (replication/lease) on a 3-node NATS cluster: of standbys that find it lapsed, or
 * held by nobody (never written, or its bucket purged), and take it at the same moment, exactly
 * one holds it — docs/replication.md's "of two standbys one wins". With `kv.update(key, value, revision)` all of them could: nats-server before 2.9.21
 * checks a key's expected revision before the write is replicated, not as it is applied, so
 * writes in flight together with the same revision each succeed (nats-server#4320; Debian 12
 * ships 2.9.10). test/replication/failover-chaos found two standbys promoted at once, and a
 * primary that went on writing after a standby had taken its lease.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { openJetStream, type JetStreamLink } from '../../src/replication/jetstream.ts';
import { Lease } from '../../src/replication/lease.ts';
import { sleep } from '../harness/api-helpers.ts';
import { startNats } from './nats-servers.ts';

const LEASE_MS = 300;
const TAKERS = 6;
const ROUNDS = 10;

test(`${TAKERS} standbys taking a lapsed lease, or one nobody holds, at once on a 3-node cluster: one holds it, ${ROUNDS} times`, { timeout: 120_000 }, async () => {
  const nats = await startNats(3);
  // Each on a node of its own (as far as three go), one after another: the first makes the bucket.
  const links: JetStreamLink[] = [];
  for (let i = 0; i < TAKERS; i++) links.push(await openJetStream([nats.nodes[i % 3].url], 3, `lease-test-${i}`));
  nats.stopsFirst(async () => void (await Promise.all(links.map((link) => link.close()))));
  const leases = links.map((link, i) => new Lease(link.lease, { holder: randomUUID(), url: `http://standby-${i}` }, LEASE_MS));
  const winners: number[] = [];
  const jsm = await jetstreamManager(links[0].nc);
  for (let round = 0; round < ROUNDS; round++) {
    // Every other round the key has no entry: never written (the first), or purged.
    if (round % 2 === 0 && round > 0) await jsm.streams.purge('KV_exchange_lease');
    // Each has read the key; nobody renews it for a lease time.
    await Promise.all(leases.map((lease) => lease.refresh()));
    await sleep(LEASE_MS + 100);
    const took = await Promise.all(leases.map((lease) => lease.take()));
    winners.push(took.filter(Boolean).length);
  }
  assert.deepEqual(winners, Array(ROUNDS).fill(1), 'takers holding the lease, round by round');
});

test('a renewal counts from when it was sent: answered after the lease time (the holder was paused with the answer in its socket), the lease is not held', async () => {
  let revision = 0;
  /** Renewals wait for the test to answer them. */
  const unanswered: (() => void)[] = [];
  const key = {
    read: async () => ({ value: null, revision }),
    write: (_value: Uint8Array | null, expected: number) =>
      revision === 0
        ? Promise.resolve((revision = expected + 1))
        : new Promise<number>((resolve) => unanswered.push(() => resolve((revision = expected + 1)))),
  };
  const lease = new Lease(key, { holder: randomUUID(), url: 'http://primary' }, LEASE_MS);
  assert.equal(await lease.take(), true);
  lease.hold();
  await sleep(LEASE_MS / 3 + 50);
  assert.equal(unanswered.length, 1, 'a renewal was sent');
  await sleep(LEASE_MS);
  unanswered.shift()!();
  await sleep(0);
  lease.stop();
  assert.equal(lease.held(), false, `its answer came ${LEASE_MS} ms after it was sent: a standby may hold the lease by now`);
});

/** A lease key whose first write (the take) is answered and later ones never are: NATS out of reach. */
function unreachableAfterTake() {
  let revision = 0;
  return {
    read: async () => ({ value: null, revision }),
    write: (_value: Uint8Array | null, expected: number) => (revision === 0 ? Promise.resolve((revision = expected + 1)) : new Promise<number>(() => {})),
  };
}

/** Runs `during` with the host's wall clock stepped back an hour (an NTP step), then puts it back. */
async function withClockStepBack(during: () => Promise<void>): Promise<void> {
  const wall = Date.now;
  Date.now = () => wall() - 3_600_000;
  try {
    await during();
  } finally {
    Date.now = wall;
  }
}

test('a holder that cannot renew stops calling itself the holder after the lease time, though its wall clock stepped back an hour meanwhile', async () => {
  const lease = new Lease(unreachableAfterTake(), { holder: randomUUID(), url: 'http://primary' }, LEASE_MS);
  assert.equal(await lease.take(), true);
  lease.hold();
  await withClockStepBack(async () => {
    await sleep(LEASE_MS + 100);
    lease.stop();
    // Before: held for the hour more, taking writes while a standby took the lease over.
    assert.equal(lease.held(), false);
  });
});

test('a standby calls a lease nobody renews expired after the lease time, though its wall clock stepped back an hour meanwhile', async () => {
  const value = new TextEncoder().encode(JSON.stringify({ holder: 'the-primary', url: 'http://primary' }));
  const standby = new Lease({ read: async () => ({ value, revision: 7 }), write: () => Promise.reject(new Error('not here')) }, { holder: randomUUID(), url: 'http://standby' }, LEASE_MS);
  await standby.refresh();
  assert.equal(standby.expired(), false);
  await withClockStepBack(async () => {
    await sleep(LEASE_MS + 100);
    await standby.refresh();
    // Before: not expired for the hour more, so no standby took over from a primary that had gone.
    assert.equal(standby.expired(), true);
  });
});
