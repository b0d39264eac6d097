/**
 * @module ws/feed-relay
 *
 * What the streaming feeds are told, and when: the feeds' intake, which owns what they are
 * handed (`FeedFrame`, and `FeedSink`, which ws/feeds implements). The sequencer and a replica's
 * replay call it through the tap the sequencer declares (sequencer/sequencer `FeedTap`), the
 * projections through theirs (history/projections `feed`): it has their shapes, and neither
 * imports the feeds.
 *
 * The relay hears each market's book events after the exchange applied them (the sequencer
 * decodes the record a second time into `listener(market)`) and every subaccount event as the
 * projections number it. At the end of each batch (`endOfBatch`: a ring batch, or a command
 * that routed nothing) what it heard becomes one frame: per market the levels that changed
 * (their new totals, so applying one twice is harmless) and the market sequence number before
 * and after, the public trades, the account events. A frame goes to the sink only once the
 * journal has flushed every record it covers, frames in order: a feed never shows what a
 * crash could take back, so a stream resumed after a restart neither misses nor repeats.
 *
 * Cost on the order path: the second decode of each book event into a Map write or a push;
 * nothing is formatted or sent here, and the sink runs after the flush, off the reply's path.
 * May import: types/ids, engine/types, history/account-events (types).
 */
import { Side, type BookListener } from '../engine/types.ts';
import type { AccountEventRecord } from '../history/account-events.ts';
import { asMarketIndex, type MarketIndex } from '../types/ids.ts';

export interface BookDelta {
  market: MarketIndex;
  /** The market sequence number the previous frame of this market ended at. */
  previous: number;
  /** The market sequence number after this frame's events (GET /book's `sequence_number`). */
  sequence: number;
  /** Changed levels, [price ticks, total lots] (0 = the level is gone). */
  bids: [number, number][];
  asks: [number, number][];
}

export interface PublicTrade {
  market: MarketIndex;
  seq: number;
  time: number;
  price: number;
  quantity: number;
  takerSide: Side;
}

export interface FeedFrame {
  /** The journal sequence number the frame covers: flushed before the frame is handed on. */
  seq: number;
  books: BookDelta[];
  trades: PublicTrade[];
  accounts: AccountEventRecord[];
}

/** The feeds, as the relay hands them on. */
export interface FeedSink {
  /** A frame whose records are durable; frames arrive in journal order. */
  frame(frame: FeedFrame): void;
  /** The projection thread wrote a batch: candles and summaries in history moved. */
  historyWritten(): void;
}

const NOTHING = () => {};

export class FeedRelay {
  private readonly listeners: BookListener[] = [];
  /** Per market: the newest sequence number heard, and the one the last frame ended at. */
  private readonly heard: number[] = [];
  private readonly framed: number[] = [];
  private readonly bids: Map<number, number>[] = [];
  private readonly asks: Map<number, number>[] = [];
  private readonly touched = new Set<MarketIndex>();
  private trades: PublicTrade[] = [];
  private accounts: AccountEventRecord[] = [];
  /** Frames handed on in order, each after its flush. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    /** Each market's sequence number at start (its depth mirror's). */
    sequences: readonly number[],
    private readonly durable: (seq: number) => Promise<void>,
    private readonly sink: FeedSink,
    /** A sink that throws (a broken invariant) is reported here; the next frames still go. */
    private readonly onError: (error: unknown) => void,
  ) {
    this.addMarkets(sequences);
  }

  /**
   * Hears the markets of `sequences` (each market's sequence number now, in market order) it
   * does not hear yet: all of them at the start, a replica's appended market once its markets
   * record is applied, before any of its book events.
   */
  addMarkets(sequences: readonly number[]): void {
    for (let market = this.listeners.length; market < sequences.length; market++) {
      this.heard.push(sequences[market]);
      this.framed.push(sequences[market]);
      this.bids.push(new Map());
      this.asks.push(new Map());
      this.listeners.push(this.listenerFor(asMarketIndex(market)));
    }
  }

  /** The book listener of `market`: called with each of its events after the exchange's. */
  listener(market: MarketIndex): BookListener {
    return this.listeners[market];
  }

  /** A subaccount event, numbered (history/projections). */
  account(event: AccountEventRecord): void {
    this.accounts.push(event);
  }

  historyWritten(): void {
    this.sink.historyWritten();
  }

  /** Closes the frame of what was heard since the last one; `journalSeq` covers all of it. */
  endOfBatch(journalSeq: number): void {
    if (this.touched.size === 0 && this.accounts.length === 0) return;
    const books: BookDelta[] = [];
    for (const market of this.touched) {
      books.push({ market, previous: this.framed[market], sequence: this.heard[market], bids: [...this.bids[market]], asks: [...this.asks[market]] });
      this.framed[market] = this.heard[market];
      this.bids[market].clear();
      this.asks[market].clear();
    }
    this.touched.clear();
    const frame: FeedFrame = { seq: journalSeq, books, trades: this.trades, accounts: this.accounts };
    this.trades = [];
    this.accounts = [];
    // A journal that failed stops the feeds with it: the exchange refuses writes from then on.
    this.chain = this.chain
      .then(() => this.durable(journalSeq))
      .then(() => this.sink.frame(frame), NOTHING)
      .catch(this.onError);
  }

  private listenerFor(market: MarketIndex): BookListener {
    const saw = (seq: number) => {
      this.heard[market] = seq;
      this.touched.add(market);
    };
    return {
      onAccepted: saw,
      onRested: saw,
      onCancelled: saw,
      onExpired: saw,
      onRejected: saw,
      onFill: (seq, _maker, _taker, _makerOwner, _takerOwner, takerSide, price, quantity, _mr, _tr, time) => {
        saw(seq);
        this.trades.push({ market, seq, time, price, quantity, takerSide });
      },
      onLevel: (seq, side, price, quantity) => {
        saw(seq);
        (side === Side.Buy ? this.bids : this.asks)[market].set(price, quantity);
      },
    };
  }
}
