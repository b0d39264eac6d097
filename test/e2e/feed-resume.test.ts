/**
 * A private stream resumed from the last sequence number a client saw misses nothing and
 * repeats nothing: after a dropped connection, and after the exchange is killed with SIGKILL
 * and restarted on its data directory (the numbers continue from the journal, not from a
 * counter that restarts). The proof: what the first connection got, then what the resumed one
 * got, is exactly the account's whole stream as a fresh subscription from 0 reads it — every
 * number once, in order, each message the same text.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Trader, type ApiClient, fundedTraders } from './harness.ts';
import { startServerProcess } from './server-process.ts';
import { assertResumed, events, follow, whole } from './feed-client.ts';

/** `maker` rests sells that `taker` fills: orders, fills, positions and balances on both. */
async function trade(maker: Trader, taker: Trader, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    assert.equal((await maker.place({ price: '95000', quantity: '-0.001' })).status, 200);
    assert.equal((await taker.place({ price: '95000', quantity: '0.001', ioc: true })).status, 200);
  }
}

async function traders(client: ApiClient): Promise<[Trader, Trader]> {
  const [maker, taker] = await fundedTraders(client, 2, '100000');
  return [maker, taker];
}

/**
 * One server process for the file: the first test's traders resume on it, the second's kill it
 * and start another on its data directory (each test reads only its own traders' streams).
 */
let server = await startServerProcess();
after(() => server.stop());

test('a private stream resumed after a dropped connection misses nothing and repeats nothing', { timeout: 60_000 }, async () => {
  const url = server.client.url;
  const [maker, taker] = await traders(server.client);
  const channel = `account.${maker.address}.0`;
  const first = await follow(url, maker.token, channel, 0);
  await trade(maker, taker, 2);
  // Dropped mid-stream: whatever it had not read yet is lost with it.
  first.socket.terminate();
  const seen = events(first, channel);
  await trade(maker, taker, 2);
  const resumed = await follow(url, maker.token, channel, seen.at(-1)!.sequence);
  await trade(maker, taker, 1);
  const all = await whole(url, maker.token, channel);
  await resumed.until(() => events(resumed, channel).at(-1)?.sequence === all.length, `event ${all.length}`);
  assertResumed(seen, events(resumed, channel), all);
  await resumed.close();
});

test('a private stream resumed after kill -9 and a restart misses nothing and repeats nothing', { timeout: 120_000 }, async () => {
  const [maker, taker] = await traders(server.client);
  const channel = `account.${maker.address}.0`;
  const first = await follow(server.client.url, maker.token, channel, 0);
  await trade(maker, taker, 3);
  await server.kill('SIGKILL');
  await first.until(() => first.closed !== null, 'the connection to close with the process');
  const seen = events(first, channel);

  server = await startServerProcess([], {}, server.dataDir);
  maker.ex = server.client;
  taker.ex = server.client;
  // The login tokens outlive the restart (the secret is kept in the data directory).
  await trade(maker, taker, 2);
  const resumed = await follow(server.client.url, maker.token, channel, seen.at(-1)!.sequence);
  await trade(maker, taker, 1);
  const all = await whole(server.client.url, maker.token, channel);
  await resumed.until(() => events(resumed, channel).at(-1)?.sequence === all.length, `event ${all.length}`);
  assertResumed(seen, events(resumed, channel), all);
  await resumed.close();
});
