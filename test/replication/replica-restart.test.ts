/**
 * A replica follows the stream from its own position: stopped while the primary goes on
 * trading, then started again on its data directory, it replays its local journal from the
 * snapshot it took when it stopped (not from seq 1), takes from
 * the stream only the records after its last, and reaches the primary's state hash at the same
 * journal seq (its journal a byte-for-byte prefix of the primary's: appendRecord checks the chain).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, startNode, startPrimaryAnd } from './nodes.ts';

test('a replica restarted on its data directory catches up from its own position', { timeout: 180_000 }, async () => {
  const nats = await startNats(1);
  const [primary, first] = await startPrimaryAnd({ nats, durability: 'local' }, { nats, role: 'replica' });
  const traders = await fundedTraders(primary.client, 2, '100000');
  const trade = async (round: string) => {
    for (let i = 0; i < 6; i++) {
      for (const [n, trader] of traders.entries()) {
        const reply = await trader.place({ price: String(95_000 + (i % 3)), quantity: n === 0 ? '0.001' : '-0.001', clientId: `${round}-${n}-${i}` });
        assert.equal(reply.status, 200, reply.text);
      }
    }
  };
  await trade('a');
  const before = await assertSameState(primary.client, first.client, ['/book/BTC-USD-PERP?depth=50']);
  await first.stop(true);

  await trade('b');
  const again = await startNode({ nats, role: 'replica', port: first.port, dataDir: first.dataDir });
  const replayed = again.logged('replaying local journal');
  assert.ok(replayed !== undefined && replayed.lastSeq >= before, `it started from its own journal (seq ${replayed?.lastSeq}, ${before} compared before the stop)`);
  assert.ok(replayed.snapshotSeq >= before, `it started from the snapshot it took at its stop (seq ${replayed.snapshotSeq}), not from seq 1`);
  const local = again.logged('local journal replayed')!;
  assert.equal(local.commands + local.events, replayed.lastSeq - replayed.snapshotSeq, 'only the records after the snapshot were replayed');
  const after = await assertSameState(primary.client, again.client, ['/book/BTC-USD-PERP?depth=50', `/account/positions?account=${traders[0].address}&subaccountIndex=0`], traders[0].auth());
  assert.ok(after > before, 'the records traded while it was down are applied');
});
