/**
 * One exchange per data directory, whatever its role (storage/directory-lock): a replica and a
 * standby hold `DIR/LOCK` as a primary does. A replica started on a directory another node
 * serves — the primary's, another replica's, a standby's before and after its takeover — is
 * refused with exit 1 and the line naming the process and the file; before, it started and
 * appended the stream's records to a journal another process was writing, breaking its hash
 * chain. A standby's takeover hands its LOCK to the primary pipeline it starts in the same
 * process, and a stopped replica leaves none behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnServerProcess } from '../e2e/server-process.ts';
import { fundedTraders } from '../e2e/harness.ts';
import { startNats, type NatsCluster } from './nats-servers.ts';
import { JWT_SECRET, assertSameState, startNode, startPrimaryAnd, untilPrimary } from './nodes.ts';

const LEASE_MS = 1500;

/** The pid a data directory's LOCK names. */
const holderOf = (dataDir: string): number => Number(readFileSync(join(dataDir, 'LOCK'), 'utf8'));

/**
 * A replica started on `dataDir` must exit 1 naming `holder` and the LOCK. Spawned without the
 * harness's stop of its nodes: the data directory is the other node's, which removes it.
 */
async function assertRefusedOn(nats: NatsCluster, dataDir: string, holder: number): Promise<void> {
  const refused = spawnServerProcess(['--nats', nats.urls, '--role', 'replica', '--jwt-secret', JWT_SECRET, '--lease-ms', String(LEASE_MS)], {}, dataDir);
  const outcome = await refused.ready.then(
    async (started) => {
      await started.kill('SIGKILL');
      return 'it started';
    },
    (error: Error) => error.message,
  );
  assert.match(outcome, /exited \(exit code 1\)/, `a replica on ${dataDir} is refused`);
  const file = join(dataDir, 'LOCK').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  assert.match(refused.stderr(), new RegExp(`^Cannot start: the data directory .* is in use by process ${holder} \\(${file}\\): two exchanges on one journal would corrupt it`, 'm'));
}

test('a replica on a data directory the primary or another replica serves is refused; a killed replica\'s LOCK is taken over by its restart; a stopped replica leaves none', { timeout: 120_000 }, async () => {
  const nats = await startNats(1);
  const [primary, replica] = await startPrimaryAnd({ nats, leaseMs: LEASE_MS }, { nats, role: 'replica', leaseMs: LEASE_MS });
  await assertRefusedOn(nats, primary.dataDir, primary.pid);
  assert.equal(holderOf(replica.dataDir), replica.pid, "the replica's LOCK names it");
  await assertRefusedOn(nats, replica.dataDir, replica.pid);

  // Both serve on, their journals unbroken: the primary's orders reach the replica.
  const [trader] = await fundedTraders(primary.client, 1, '100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.001' })).status, 200);
  await assertSameState(primary.client, replica.client, ['/book/BTC-USD-PERP']);

  // A LOCK left by a killed replica does not stand in the way of its restart, and a stop removes it.
  await replica.kill('SIGKILL');
  assert.equal(holderOf(replica.dataDir), replica.pid, 'kill -9 leaves the LOCK behind');
  const restarted = await startNode({ nats, role: 'replica', leaseMs: LEASE_MS, dataDir: replica.dataDir, port: replica.port });
  assert.equal(holderOf(replica.dataDir), restarted.pid, 'taken over by the restart');
  await restarted.stop(true);
  assert.equal(existsSync(join(replica.dataDir, 'LOCK')), false, 'a stopped replica leaves no LOCK');
});

test("a standby holds its LOCK, and after its takeover the primary it became holds it: a replica on it is refused before and after", { timeout: 120_000 }, async () => {
  const nats = await startNats(1);
  const [primary, standby] = await startPrimaryAnd({ nats, leaseMs: LEASE_MS }, { nats, role: 'standby', leaseMs: LEASE_MS });
  assert.equal(holderOf(standby.dataDir), standby.pid, "the standby's LOCK names it");
  await assertRefusedOn(nats, standby.dataDir, standby.pid);

  await primary.kill('SIGKILL');
  await untilPrimary(standby.client, Date.now());
  const [trader] = await fundedTraders(standby.client, 1, '100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.001' })).status, 200, 'the new primary takes writes');
  assert.equal(holderOf(standby.dataDir), standby.pid, 'the LOCK names the process that took over');
  await assertRefusedOn(nats, standby.dataDir, standby.pid);

  await standby.stop(true);
  assert.equal(existsSync(join(standby.dataDir, 'LOCK')), false, 'the stopped node leaves no LOCK');
});
