/**
 * A replica whose markets file has other fees than the primary's: the journal carries the
 * primary's markets (its markets records), and the replica replays it under them, so the fees
 * it computes, its state hash and its GET /markets are the primary's at the same journal seq —
 * before this, it silently charged its own file's fees. A replica whose markets file moves a
 * market is refused at its start, naming the market. A running replica serves the markets the
 * primary's later markets records set, as the primary does after its restart: the new fee in
 * GET /markets and /config, and an appended market's book over REST and the feed — before, its
 * routes kept the markets of its own start (a restart showed them), it refused the new market's
 * channels, and the new market's first book event stopped it following the stream.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fundedTraders } from '../e2e/harness.ts';
import { launchNats, startNats, type NatsCluster } from './nats-servers.ts';
import { assertSameState, spawnNode, startNode, startPrimaryAnd } from './nodes.ts';
import { FeedClient } from '../e2e/feed-client.ts';

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

test("a running replica serves the markets a restarted primary recorded: the new fee in GET /markets and /config, the appended market's book and feed", { timeout: 120_000 }, async (t) => {
  // A NATS server of its own: the first test's primary holds the lease on the shared one.
  const own = await startNats(1);
  const [first, replica] = await startPrimaryAnd({ nats: own }, { nats: own, role: 'replica' });
  // The primary restarted on a file with a new BTC taker fee and a market appended: its start journals a markets record.
  const doge = { ...MARKETS[0], symbol: 'DOGE-USD-PERP', oracleFeedId: '0x01', tickSize: '0.00001', lotSize: '1', minSize: '1', initialPrice: '0.1' };
  const changed = marketsFile('changed', [{ ...MARKETS[0], takerFee: '0.0007' }, ...MARKETS.slice(1), doge]);
  await first.stop(true);
  const primary = await startNode({ nats: own, dataDir: first.dataDir, port: first.port, env: { MARKETS: changed } });
  assert.ok(primary.log.some((e) => e.msg === 'markets file changed: the new values apply from this journal seq on'), 'the markets record journaled');

  const book = `/book/${doge.symbol}`;
  await assertSameState(primary.client, replica.client, ['/markets', '/config', book]);
  const btc = (await replica.client.request('GET', '/markets')).json().markets.find((m: { symbol: string }) => m.symbol === MARKETS[0].symbol);
  assert.equal(btc.takerFee, '0.0007', "the replica's GET /markets has the new fee");
  assert.equal((await replica.client.request('GET', book)).status, 200, "the replica serves the appended market's book");

  // The appended market's feed on the replica: its snapshot, then the order placed on the primary.
  const feed = await FeedClient.connect(replica.client.url);
  t.after(() => feed.close());
  feed.send({ op: 'subscribe', id: 1, channels: [`book.${doge.symbol}`] });
  await feed.next((m) => m.channel === `book.${doge.symbol}` && m.type === 'snapshot', "the appended market's book snapshot");
  const [trader] = await fundedTraders(primary.client, 1, '100000');
  assert.equal((await trader.place({ symbol: doge.symbol, price: '0.09', quantity: '100' })).status, 200);
  await feed.next((m) => m.channel === `book.${doge.symbol}` && m.type === 'delta' && m.bids.some(([price]: [string]) => Number(price) === 0.09), "the bid in the replica's feed");
  await assertSameState(primary.client, replica.client, [book]);
  assert.equal(Number((await replica.client.request('GET', book)).json().bids[0].price), 0.09, "the bid in the replica's GET /book");
});
