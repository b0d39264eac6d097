/**
 * A replica whose markets file has other fees than the primary's: the journal carries the
 * primary's markets (its markets records), and the replica replays it under them, so the fees
 * it computes, its state hash and its GET /markets are the primary's at the same journal seq —
 * before this, it silently charged its own file's fees. A replica whose markets file moves a
 * market is refused at its start, naming the market.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fundedTraders } from '../e2e/harness.ts';
import { launchNats, type NatsCluster } from './nats-servers.ts';
import { assertSameState, spawnNode, startPrimaryAnd } from './nodes.ts';

const MARKETS_FILE = fileURLToPath(new URL('../../config/markets.json', import.meta.url));
const MARKETS: (Record<string, unknown> & { symbol: string })[] = JSON.parse(readFileSync(MARKETS_FILE, 'utf8')).markets;
const files = mkdtempSync(join(tmpdir(), 'perp-replica-markets-'));
/** A markets file listing `markets`. */
function marketsFile(name: string, markets: typeof MARKETS): string {
  const path = join(files, `${name}.json`);
  writeFileSync(path, JSON.stringify({ markets }));
  return path;
}

let nats: NatsCluster | undefined;
before(async () => {
  nats = await launchNats(1);
});
after(async () => {
  await nats?.stop();
  rmSync(files, { recursive: true, force: true });
});

test("a replica whose markets file has other fees ends with the primary's fees, state hash and GET /markets", { timeout: 120_000 }, async () => {
  const cheaper = marketsFile('cheaper', [{ ...MARKETS[0], takerFee: '0.0001', makerFee: '0' }, ...MARKETS.slice(1)]);
  const [primary, replica] = await startPrimaryAnd({ nats: nats! }, { nats: nats!, role: 'replica', env: { MARKETS: cheaper } });
  const [maker, taker] = await fundedTraders(primary.client, 2, '100000');
  assert.equal((await maker.place({ price: '95000', quantity: '-0.01' })).status, 200);
  assert.equal((await taker.place({ price: '95000', quantity: '0.01' })).status, 200);
  const positions = `/account/positions?account=${taker.address}&subaccountIndex=0`;
  await assertSameState(primary.client, replica.client, ['/markets', positions], taker.auth());
  const read = await replica.client.request('GET', positions, undefined, taker.auth());
  assert.equal(read.json().positions[0].fees, '0.475', "the primary's taker fee, 0.0005 of 950");
  assert.ok(replica.log.some((e) => e.msg?.startsWith("this node's markets file differs from the primary's journal")), 'the difference is logged');

  // A replica whose file swaps two markets cannot follow this journal: refused at its start.
  const swapped = marketsFile('swapped', [MARKETS[1], MARKETS[0], ...MARKETS.slice(2)]);
  const refused = await spawnNode({ nats: nats!, role: 'replica', env: { MARKETS: swapped } });
  const error = await refused.ready.then(
    () => assert.fail('the replica started'),
    (e: Error) => e,
  );
  assert.match(error.message, new RegExp(`this node's markets file does not match the markets this data directory's journal runs under: ${MARKETS[1].symbol} is market 0 in the markets file`));
});
