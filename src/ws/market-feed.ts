/**
 * @module ws/market-feed
 *
 * The public channels' fan-out (`book.`, `trades.`, `candles.`, `prices.`, `summary.` +
 * symbol), through uWS topics: a message is serialized once and uWS writes the one string to
 * every subscriber. A fan-out costs a write to every subscriber whatever the bytes, so a
 * market's book and trades go out at most once every `publishEveryMs`: the first frame after a
 * quiet spell at once, the frames within a window merged into one delta (levels carry totals:
 * the newest wins) and one trades message (in order). The book is kept here as published (a
 * depth mirror updated by each delta), so a snapshot on subscribe is exactly the state the next
 * delta starts from (its `previous_sequence_number`), and each delta's checksum is of the book
 * after it. Candles, prices and summaries go out when they change, no more often than their
 * periods; a summary held back by its period goes out when the period ends (with the history
 * written by then), so the last trades of a burst are never left out of it.
 * May import: types/ids (types), config/market (types), engine/types, history/ (candles, types), app/depth-mirror, ws/.
 */
import type { MarketSpec } from '../config/market.ts';
import { Side } from '../engine/types.ts';
import { CANDLE_INTERVALS } from '../history/candles.ts';
import type { MarketHistory } from '../history/types.ts';
import type { FeedFrame, PublicTrade } from './feed-relay.ts';
import { DepthMirror } from '../app/depth-mirror.ts';
import type { FeedConnections } from './feed-connections.ts';
import { bookDelta, bookSnapshot, candleMessage, CHECKSUM_LEVELS, pricesMessage, summaryMessage, tradesMessage, type PriceFigures } from './messages.ts';
import type { MarketIndex } from '../types/ids.ts';

/** Candles of a market are looked at after each history write for this long after its last trade. */
const CANDLE_WATCH_MS = 5000;
const SUMMARY_EVERY_MS = 1000;

/** What the public channels read. */
export interface MarketFeedPorts {
  markets: readonly MarketSpec[];
  /** Each market's book at start (before any frame). */
  startBooks: readonly DepthMirror[];
  prices(market: MarketIndex): PriceFigures;
  history: Pick<MarketHistory, 'candles' | 'summary24h'>;
  clock(): number;
}

/** A market's frames not yet published: levels merged (new totals), trades in order. */
interface Unpublished {
  /** The sequence number the published book is at: the merged delta starts here. */
  previous: number;
  sequence: number;
  bids: Map<number, number>;
  asks: Map<number, number>;
  trades: PublicTrade[];
}

/** What a `prices` message says, to tell a change from the figures last sent. */
const pricesKey = (f: { mark: unknown; index: unknown; last: unknown; fundingRate: unknown }): string => `${f.mark}:${f.index}:${f.last}:${f.fundingRate}`;

export class MarketFeed {
  /** The books as published. */
  private readonly books: DepthMirror[] = [];
  private readonly lastTradeAt: number[] = [];
  /** Per market: what waits for its window, when it was last published, the timer of its next window. */
  private readonly unpublished: (Unpublished | null)[] = [];
  private readonly publishedAt: number[] = [];
  private readonly windows: (NodeJS.Timeout | undefined)[] = [];
  /** Closed: no more windows, each frame published as it comes. */
  private closing = false;
  private readonly lastSummaryAt: number[] = [];
  /** Per market: the timer of a summary held back by `SUMMARY_EVERY_MS`. */
  private readonly summaryTimers: (NodeJS.Timeout | undefined)[] = [];
  /** Per market: the last book snapshot built, for the subscribers of the same book and second. */
  private readonly snapshots: ({ name: string; sequence: number; second: number; text: string } | undefined)[] = [];
  /** The last text sent per candle / prices topic (so an unchanged one is not sent again). */
  private readonly lastSent = new Map<string, string>();

  constructor(
    private readonly ports: MarketFeedPorts,
    private readonly out: Pick<FeedConnections, 'attached' | 'subscribers' | 'publish'>,
    private readonly publishEveryMs: number,
  ) {
    this.addMarkets(ports.startBooks);
  }

  /**
   * Takes on the markets of `ports.markets` it does not have yet (all of them at the start; a
   * replica's appended market once its markets record is applied), each from its book in `books`.
   */
  addMarkets(books: readonly DepthMirror[]): void {
    for (let market = this.books.length; market < this.ports.markets.length; market++) {
      this.books.push(DepthMirror.restore(books[market].snapshot()));
      this.lastTradeAt.push(0);
      this.unpublished.push(null);
      this.publishedAt.push(-Infinity);
      this.windows.push(undefined);
      this.lastSummaryAt.push(0);
      this.summaryTimers.push(undefined);
    }
  }

  /** Publishes what waits for a window; from now on each frame goes out as it comes. */
  close(): void {
    this.closing = true;
    for (const timer of [...this.windows, ...this.summaryTimers]) clearTimeout(timer);
    this.windows.fill(undefined);
    this.summaryTimers.fill(undefined);
    for (const market of this.ports.markets) this.publishMarket(market.index);
  }

  /**
   * A new subscriber's snapshot of the book as published: the state the next delta starts from.
   * Every level, so its cost grows with the book: it is built once per market while the
   * published book and the second of its `time` are unchanged (at most once a publish window and
   * a second), and handed as built to every subscriber meanwhile, however many subscribe.
   */
  bookSnapshot(name: string, market: MarketSpec, now: number): string {
    const book = this.books[market.index];
    const second = Math.floor(now / 1000);
    const cached = this.snapshots[market.index];
    if (cached !== undefined && cached.sequence === book.sequence && cached.second === second && cached.name === name) return cached.text;
    const all = Number.MAX_SAFE_INTEGER;
    const text = bookSnapshot(name, market, book.sequence, book.depth(Side.Buy, all, 1), book.depth(Side.Sell, all, 1), now);
    this.snapshots[market.index] = { name, sequence: book.sequence, second, text };
    return text;
  }

  /** A frame's book deltas and trades go out with their market's next publish (at once if the last is a window ago). */
  frame(frame: Pick<FeedFrame, 'books' | 'trades'>): void {
    const touched = new Set<MarketIndex>();
    for (const delta of frame.books) {
      const u = this.unpublishedOf(delta.market);
      for (const [price, quantity] of delta.bids) u.bids.set(price, quantity);
      for (const [price, quantity] of delta.asks) u.asks.set(price, quantity);
      u.sequence = delta.sequence;
      touched.add(delta.market);
    }
    const now = this.ports.clock();
    for (const t of frame.trades) {
      this.unpublishedOf(t.market).trades.push(t);
      // The candles are watched from the trade on, not from its window: its history write may
      // be reported before the window publishes.
      this.lastTradeAt[t.market] = now;
      touched.add(t.market);
    }
    for (const market of touched) this.schedule(market);
  }

  private unpublishedOf(market: MarketIndex): Unpublished {
    const sequence = this.books[market].sequence;
    return (this.unpublished[market] ??= { previous: sequence, sequence, bids: new Map(), asks: new Map(), trades: [] });
  }

  /**
   * Publishes the market now if its last publish is a window ago, else once it is (one timer).
   * The window is measured in this process's monotonic time (`performance.now()`), not the
   * exchange's clock (`ports.clock`, which stamps messages): the timer that ends it is a real
   * one, and a clock a test or an operator sets must not stretch or skip it.
   */
  private schedule(market: MarketIndex): void {
    if (this.closing) return this.publishMarket(market);
    if (this.windows[market] !== undefined) return;
    const wait = this.publishedAt[market] + this.publishEveryMs - performance.now();
    if (wait <= 0) {
      this.publishMarket(market);
      return;
    }
    this.windows[market] = setTimeout(() => {
      this.windows[market] = undefined;
      this.publishMarket(market);
    }, wait);
  }

  /** The market's merged delta onto the published book, then its trades and prices. */
  private publishMarket(index: MarketIndex): void {
    const u = this.unpublished[index];
    if (u === null) return;
    this.unpublished[index] = null;
    this.publishedAt[index] = performance.now();
    const now = this.ports.clock();
    const market = this.ports.markets[index];
    const book = this.books[index];
    for (const [price, quantity] of u.bids) book.level(u.sequence, Side.Buy, price, quantity);
    for (const [price, quantity] of u.asks) book.level(u.sequence, Side.Sell, price, quantity);
    book.saw(u.sequence);
    if (!this.out.attached) return;
    const bookTopic = `book.${market.symbol}`;
    if (u.sequence !== u.previous && this.out.subscribers(bookTopic) > 0) {
      const delta = { market: index, previous: u.previous, sequence: u.sequence, bids: [...u.bids], asks: [...u.asks] };
      this.out.publish(bookTopic, bookDelta(bookTopic, market, delta, { bids: book.depth(Side.Buy, CHECKSUM_LEVELS, 1), asks: book.depth(Side.Sell, CHECKSUM_LEVELS, 1) }, now));
    }
    if (u.trades.length === 0) return;
    const tradesTopic = `trades.${market.symbol}`;
    if (this.out.subscribers(tradesTopic) > 0) this.out.publish(tradesTopic, tradesMessage(tradesTopic, market, u.trades));
    this.publishPrices(market);
  }

  /**
   * A new subscriber's first `prices` message. Any change the topic's earlier subscribers have
   * not been sent goes to them first; then all hold these figures, and the next check sends
   * only a change (it sent a first subscriber the same figures again, a second later).
   * Call before subscribing the connection.
   */
  pricesOnSubscribe(market: MarketSpec, now: number): string {
    this.publishPrices(market);
    const topic = `prices.${market.symbol}`;
    const figures = this.ports.prices(market.index);
    this.lastSent.set(topic, pricesKey(figures));
    return pricesMessage(topic, market, figures, now);
  }

  /** The market's prices, if they changed since last sent (on each publish of the market and every second). */
  publishPrices(market: MarketSpec): void {
    const topic = `prices.${market.symbol}`;
    if (this.out.subscribers(topic) === 0) return;
    const figures = this.ports.prices(market.index);
    const key = pricesKey(figures);
    if (this.lastSent.get(topic) === key) return;
    this.lastSent.set(topic, key);
    this.out.publish(topic, pricesMessage(topic, market, figures, this.ports.clock()));
  }

  /** New history: the candles of markets that traded lately and the summaries, where they changed. */
  historyWritten(): void {
    if (!this.out.attached) return;
    const now = this.ports.clock();
    for (const market of this.ports.markets) {
      if (now - this.lastTradeAt[market.index] > CANDLE_WATCH_MS) continue;
      for (const interval of CANDLE_INTERVALS) {
        const topic = `candles.${market.symbol}.${interval.name}`;
        if (this.out.subscribers(topic) === 0) continue;
        const newest = this.ports.history.candles(market.index, interval, { limit: 1 })[0];
        if (newest === undefined) continue;
        const text = candleMessage(topic, market, newest);
        if (this.lastSent.get(topic) === text) continue;
        this.lastSent.set(topic, text);
        this.out.publish(topic, text);
      }
      if (this.out.subscribers(`summary.${market.symbol}`) > 0) this.scheduleSummary(market, now);
    }
  }

  /**
   * The market's summary now if the last is a period ago, else once it is (one timer): a
   * summary only throttled would leave the trades of a burst's last second out of every
   * summary until the market traded again.
   */
  private scheduleSummary(market: MarketSpec, now: number): void {
    if (this.summaryTimers[market.index] !== undefined) return;
    const wait = this.lastSummaryAt[market.index] + SUMMARY_EVERY_MS - now;
    if (wait <= 0) {
      this.publishSummary(market, now);
      return;
    }
    // Closed: no more timers (as for the windows).
    if (this.closing) return;
    this.summaryTimers[market.index] = setTimeout(() => {
      this.summaryTimers[market.index] = undefined;
      this.publishSummary(market, this.ports.clock());
    }, wait);
  }

  private publishSummary(market: MarketSpec, now: number): void {
    const topic = `summary.${market.symbol}`;
    if (this.out.subscribers(topic) === 0) return;
    this.lastSummaryAt[market.index] = now;
    this.out.publish(topic, summaryMessage(topic, market, this.ports.history.summary24h(market.index, now)));
  }
}
