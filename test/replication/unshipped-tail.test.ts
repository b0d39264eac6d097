/**
 * A primary deposed with records it journaled and never shipped comes back as a standby when it
 * ran with `--durability replicated`: no reply waited on those records but JetStream's store,
 * so nobody was told of them, and it cuts them (logged `UNSHIPPED RECORDS DROPPED`) to follow
 * the stream — where, before, it stopped with exit 1 (diverged history) and the operator had to
 * re-seed its data directory. A frozen primary whose clock had just journaled a tick made the
 * fencing test fail this way once in CI.
 *
 * Made to happen: the NATS server is paused (SIGSTOP), so what the primary journals next stays
 * in its journal alone; two orders are sent; the primary is paused; the server resumes; the
 * standby takes the lease over and writes. Resumed, the old primary is deposed, cuts what the
 * stream lacks, and follows: the same state as the new primary at the same seq. Each order's
 * caller was told what happened to it: 200 if the stream stored it (the first one's publish may
 * have reached the paused server), else 421 naming the new primary.
 *
 * This test found acknowledged orders lost: both were answered 200. The publisher's message id
 * was the block's first journal seq, and JetStream answers an id it holds (the new primary's
 * block at that seq) as a duplicate, stored, before it checks `expect.lastSequence`. Then a
 * stored order answered 421: a refused block failed every waiter, the in-flight one's too. Then
 * the second order got no answer at all: the message the server refused was out of the queue a
 * fence rejects, so its reply waited for the gateway's drain to end and the connection closed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fundedTraders } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, lastWords, startPrimaryAnd, untilPrimary, untilStandbyOf } from './nodes.ts';

const LEASE_MS = 1500;

test('a primary deposed with unshipped records under replicated durability cuts them and follows the stream as a standby', { timeout: 180_000 }, async () => {
  const nats = await startNats(1);
  const [old, standby] = await startPrimaryAnd({ nats, durability: 'replicated', leaseMs: LEASE_MS }, { nats, role: 'standby', leaseMs: LEASE_MS });
  const [trader] = await fundedTraders(old.client, 1, '100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.001', clientId: 'before' })).status, 200);

  nats.nodes[0].signal('SIGSTOP');
  // Both sent while the old primary still holds its lease (renewed within the last third of it):
  // the first one's block may go out and wait in the paused server's socket, the second's waits behind it.
  const unanswered = [
    trader.place({ price: '90001', quantity: '0.001', clientId: 'in-the-socket' }).catch(() => null),
    new Promise((resolve) => setTimeout(resolve, 100)).then(() => trader.place({ price: '90002', quantity: '0.001', clientId: 'journaled-only' }).catch(() => null)),
  ];
  // Until its lease has lapsed: from then on it journals nothing (writes refused, the clock
  // idle), so what it will have unshipped is all there.
  let seen: any;
  for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) {
    seen = (await old.client.request('GET', '/cluster')).json();
    if (seen.lease.ageMs > LEASE_MS) break;
  }
  assert.ok(seen.lastSeq > seen.shippedSeq, `it journaled what it could not ship: ${JSON.stringify(seen)}`);
  process.kill(old.pid, 'SIGSTOP');
  nats.nodes[0].signal('SIGCONT');

  await untilPrimary(standby.client, Date.now());
  const newPrimary = `http://127.0.0.1:${standby.port}`;
  trader.ex = standby.client;
  assert.equal((await trader.place({ price: '90003', quantity: '0.001', clientId: 'on-new-primary' })).status, 200);

  process.kill(old.pid, 'SIGCONT');
  await untilStandbyOf(old, newPrimary);
  const dropped = old.log.find((e) => String(e.msg).startsWith('UNSHIPPED RECORDS DROPPED'));
  assert.ok(dropped !== undefined && dropped.to >= dropped.from, `it cut its unshipped records; ${lastWords(old)}`);
  assert.equal(Number(readFileSync(join(old.dataDir, 'LOCK'), 'utf8')), old.pid, 'it cut them under its LOCK, which it holds as a standby');

  // What each caller was told is what happened: 200 and there, or 421 naming the new primary
  // and nowhere. The second order's block waited behind the first's and was never stored.
  const answers = await Promise.all(unanswered);
  const orders = `/account/orders?account=${trader.address}&subaccountIndex=0`;
  await assertSameState(standby.client, old.client, [orders], trader.auth());
  const ids = (await trader.get(orders)).json().bids.map((o: any) => o.clientId);
  const statuses = answers.map((a) => a?.status ?? 'closed');
  ['in-the-socket', 'journaled-only'].forEach((clientId, i) => {
    const answer = answers[i];
    // Answered before the deposed node's gateway stopped: a refused block's replies are 421 at once.
    assert.ok(answer !== null, `${clientId} got no answer: ${statuses}`);
    if (answer.status === 200) assert.ok(ids.includes(clientId), `${clientId} was answered 200 and is there: ${ids.join()}`);
    else {
      assert.equal(answer.status, 421, answer.text);
      assert.equal(answer.headers.get('x-primary-url'), newPrimary);
      assert.ok(!ids.includes(clientId), `${clientId} was refused and is nowhere: ${ids.join()}`);
    }
  });
  assert.ok(!ids.includes('journaled-only'), `${statuses}: ${ids.join()}`);
  assert.ok(ids.includes('before') && ids.includes('on-new-primary'), ids.join());
});
