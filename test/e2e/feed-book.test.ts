/**
 * The book feed is enough to hold the book: a client that keeps only the snapshot it got on
 * subscribing and the deltas after it has, at every step of a random trading session across
 * three markets, exactly the levels GET /book shows at the same `sequence_number` — and every
 * delta chains on the one before (`previous_sequence_number`) and carries the checksum the
 * client computes from its own copy with the recipe of docs/feeds.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { startTestExchange, Trader } from './harness.ts';
import { FeedClient, type FeedMessage } from './feed-client.ts';
import { seeded } from '../../bench/seeded.ts';

const MARKETS = [
  { symbol: 'BTC-USD-PERP', index: 950_000, priceDecimals: 1, lotDecimals: 4 },
  { symbol: 'ETH-USD-PERP', index: 350_000, priceDecimals: 2, lotDecimals: 3 },
  { symbol: 'SOL-USD-PERP', index: 180_000, priceDecimals: 3, lotDecimals: 2 },
];
const STEPS = Number(process.env.FEED_BOOK_STEPS ?? 45);
const SEED = Number(process.env.FEED_BOOK_SEED ?? Date.now() % 1_000_000);

/** A client's copy of one book, built only from the feed. */
class BookCopy {
  sequence = -1;
  readonly bids = new Map<string, string>();
  readonly asks = new Map<string, string>();

  apply(m: FeedMessage): void {
    if (m.type === 'snapshot') {
      this.bids.clear();
      this.asks.clear();
    } else {
      assert.equal(m.previous_sequence_number, this.sequence, `${m.channel}: a delta from ${m.previous_sequence_number} on a copy at ${this.sequence} (a gap)`);
    }
    for (const [side, levels] of [[this.bids, m.bids], [this.asks, m.asks]] as const) {
      for (const [price, quantity] of levels as [string, string][]) {
        if (Number(quantity) === 0) side.delete(price);
        else side.set(price, quantity);
      }
    }
    this.sequence = m.sequence_number;
    assert.equal(this.checksum(), m.checksum, `${m.channel} at ${this.sequence}: checksum of the copy differs from the feed's`);
  }

  sorted(side: 'bids' | 'asks'): { price: string; quantity: string }[] {
    const levels = [...this[side]].map(([price, quantity]) => ({ price, quantity }));
    return levels.sort((a, b) => (side === 'bids' ? Number(b.price) - Number(a.price) : Number(a.price) - Number(b.price)));
  }

  /** docs/feeds.md: CRC-32 of the best 25 bids then the best 25 asks, `price:quantity`, `,` between levels, `|` between sides. */
  checksum(): number {
    const side = (s: 'bids' | 'asks') => this.sorted(s).slice(0, 25).map((l) => `${l.price}:${l.quantity}`).join(',');
    return crc32(`${side('bids')}|${side('asks')}`);
  }
}

test(`a book rebuilt from snapshot and deltas equals GET /book at every step (seed ${SEED})`, { timeout: 120_000 }, async () => {
  const ex = await startTestExchange();
  const rand = seeded(SEED);
  const traders = await Promise.all([0, 1, 2].map(async () => {
    const t = await new Trader(ex).login();
    await t.fund('10000000');
    return t;
  }));
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
