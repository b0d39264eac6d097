/**
 * The book feed is enough to hold the book: a client that keeps only the snapshot it got on
 * subscribing and the deltas after it has, at every step of a random trading session across
 * three markets, exactly the levels GET /book shows at the same `sequence_number` — and every
 * delta chains on the one before (`previous_sequence_number`) and carries the checksum the
 * client computes from its own copy with the recipe of docs/feeds.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders } from './harness.ts';
import { FeedClient } from './feed-client.ts';
import { BookCopy } from './book-copy.ts';
import { seeded } from '../../bench/seeded.ts';

const MARKETS = [
  { symbol: 'BTC-USD-PERP', index: 950_000, priceDecimals: 1, lotDecimals: 4 },
  { symbol: 'ETH-USD-PERP', index: 350_000, priceDecimals: 2, lotDecimals: 3 },
  { symbol: 'SOL-USD-PERP', index: 180_000, priceDecimals: 3, lotDecimals: 2 },
];
const STEPS = Number(process.env.FEED_BOOK_STEPS ?? 45);
const SEED = Number(process.env.FEED_BOOK_SEED ?? Date.now() % 1_000_000);

test(`a book rebuilt from snapshot and deltas equals GET /book at every step (seed ${SEED})`, { timeout: 120_000 }, async () => {
  const ex = await startTestExchange();
  const rand = seeded(SEED);
  const traders = await fundedTraders(ex, 3, '10000000');
  const feed = await FeedClient.connect(ex.url);
  feed.send({ op: 'subscribe', id: 1, channels: MARKETS.map((m) => `book.${m.symbol}`) });
  const copies = new Map(MARKETS.map((m) => [m.symbol, new BookCopy()]));
  let applied = 0;
  const catchUp = () => {
    for (; applied < feed.messages.length; applied++) {
      const m = feed.messages[applied];
      if (m.channel?.startsWith('book.')) copies.get(m.channel.slice(5))!.apply(m);
    }
  };

  for (let step = 0; step < STEPS; step++) {
    const market = MARKETS[Math.floor(rand() * MARKETS.length)];
    const trader = traders[Math.floor(rand() * traders.length)];
    const ticks = market.index + Math.floor(rand() * 11) - 5;
    const lots = 1 + Math.floor(rand() * 5);
    const sell = rand() < 0.5;
    const price = (ticks / 10 ** market.priceDecimals).toFixed(market.priceDecimals);
    const quantity = ((sell ? -lots : lots) / 10 ** market.lotDecimals).toFixed(market.lotDecimals);
    const placed = await trader.place({ symbol: market.symbol, price, quantity, ioc: rand() < 0.15 });
    assert.equal(placed.status, 200, `step ${step}: ${placed.text}`);

    for (const m of MARKETS) {
      const rest = (await ex.request('GET', `/book/${m.symbol}?depth=5000`)).json();
      const copy = copies.get(m.symbol)!;
      await feed.until(() => (catchUp(), copy.sequence >= rest.sequence_number), `${m.symbol} at sequence ${rest.sequence_number}`);
      assert.equal(copy.sequence, rest.sequence_number, `step ${step}: ${m.symbol} copy ran past GET /book`);
      assert.deepEqual({ bids: copy.sorted('bids'), asks: copy.sorted('asks') }, { bids: rest.bids, asks: rest.asks }, `step ${step}: ${m.symbol} at ${copy.sequence}`);
    }
  }
  // The session moved every book: the comparison was not of empty books.
  for (const m of MARKETS) assert.ok(copies.get(m.symbol)!.sequence > 0, `${m.symbol} never traded`);
  await feed.close();
});
