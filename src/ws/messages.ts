/**
 * @module ws/messages
 *
 * The feeds' messages as the client reads them: every server message is one JSON object with
 * `channel` (absent on replies to the client's own requests) and `type`. Decimals are strings
 * formatted as REST formats them (prices, quantities, USD), so a client keeps one parser.
 * Each message is built and serialized once, then published to every subscriber.
 *
 * Book checksum (docs/feeds.md): CRC-32 (IEEE, as zlib's) of the text made of the best
 * `CHECKSUM_LEVELS` bids, best first, then the best `CHECKSUM_LEVELS` asks, best first, each
 * level written `price:quantity` with the decimal strings exactly as sent, levels joined by
 * `,` and the two sides by `|` (an empty side is empty text): bids 100.5×2, 100×1 and ask 101×3
 * give `100.5:2,100:1|101:3`. Sent as an unsigned 32-bit integer.
 * May import: config/market, history/ (views, account-events types, candles types), history/types
 * (types), engine/types, http/order-view (the view it shares with REST), node:zlib, numeric/decimal,
 * ws/feed-relay (types).
 */
import { crc32 } from 'node:zlib';
import { lotsToQuantity, ticksToPrice, COLLATERAL_SCALE, RATE_SCALE, type MarketSpec } from '../config/market.ts';
import { formatDecimal } from '../numeric/decimal.ts';
import { Side, formatOrderId, type Level } from '../engine/types.ts';
import { candleView, secondsOf, summaryView, tradeView } from '../history/views.ts';
import type { Candle } from '../history/candles.ts';
import type { MarketSummary } from '../history/types.ts';
import type { AccountEventRecord } from '../history/account-events.ts';
import type { BookDelta, PublicTrade } from './feed-relay.ts';
import { orderView, type OrderLike } from '../http/order-view.ts';

/** Levels per side the book checksum covers. */
export const CHECKSUM_LEVELS = 25;

type Pair = [string, string];

const usd = (units: string | bigint): string => formatDecimal(BigInt(units), COLLATERAL_SCALE);

function pairs(market: MarketSpec, levels: Iterable<readonly [number, number]>): Pair[] {
  const out: Pair[] = [];
  for (const [price, quantity] of levels) out.push([ticksToPrice(market, price), lotsToQuantity(market, quantity)]);
  return out;
}

/** The checksum of a book's top levels (see the module header); `bids` and `asks` best first. */
export function bookChecksum(bids: readonly Pair[], asks: readonly Pair[]): number {
  const side = (levels: readonly Pair[]) => levels.slice(0, CHECKSUM_LEVELS).map(([p, q]) => `${p}:${q}`).join(',');
  return crc32(`${side(bids)}|${side(asks)}`);
}

/** The first message of a book subscription: every level, at `sequence`. */
export function bookSnapshot(channel: string, market: MarketSpec, sequence: number, bids: readonly Level[], asks: readonly Level[], now: number): string {
  const b = pairs(market, bids.map((l) => [l.price, l.quantity] as const));
  const a = pairs(market, asks.map((l) => [l.price, l.quantity] as const));
  return JSON.stringify({ channel, type: 'snapshot', sequence_number: sequence, bids: b, asks: a, checksum: bookChecksum(b, a), time: secondsOf(now) });
}

/** Levels changed between two sequence numbers (quantity "0" = gone), and the checksum of the book after them. */
export function bookDelta(channel: string, market: MarketSpec, delta: BookDelta, top: { bids: Level[]; asks: Level[] }, now: number): string {
  const byBest = (side: Side) => (x: [number, number], y: [number, number]) => (side === Side.Buy ? y[0] - x[0] : x[0] - y[0]);
  const level = (l: Level) => [l.price, l.quantity] as const;
  return JSON.stringify({
    channel,
    type: 'delta',
    previous_sequence_number: delta.previous,
    sequence_number: delta.sequence,
    bids: pairs(market, delta.bids.sort(byBest(Side.Buy))),
    asks: pairs(market, delta.asks.sort(byBest(Side.Sell))),
    checksum: bookChecksum(pairs(market, top.bids.map(level)), pairs(market, top.asks.map(level))),
    time: secondsOf(now),
  });
}

export function tradesMessage(channel: string, market: MarketSpec, trades: readonly PublicTrade[]): string {
  return JSON.stringify({
    channel,
    type: 'trades',
    trades: trades.map((t) => ({ ...tradeView(market, { marketIndex: t.market, seq: t.seq, time: t.time, price: t.price, quantity: t.quantity, takerSide: t.takerSide }), sequence_number: t.seq })),
  });
}

export function candleMessage(channel: string, market: MarketSpec, candle: Candle): string {
  return JSON.stringify({ channel, type: 'candle', candle: candleView(market, candle) });
}

export interface PriceFigures {
  mark: number;
  index: number;
  last: number | undefined;
  /** The last settled funding rate (RATE_SCALE), or null before the first. */
  fundingRate: bigint | null;
}

export function pricesMessage(channel: string, market: MarketSpec, p: PriceFigures, now: number): string {
  const price = (ticks: number | undefined) => (ticks === undefined || ticks <= 0 ? null : ticksToPrice(market, ticks));
  return JSON.stringify({
    channel,
    type: 'prices',
    markPrice: price(p.mark),
    indexPrice: price(p.index),
    lastPrice: price(p.last),
    fundingRate: p.fundingRate === null ? null : formatDecimal(p.fundingRate, RATE_SCALE),
    time: secondsOf(now),
  });
}

export function summaryMessage(channel: string, market: MarketSpec, summary: MarketSummary): string {
  return JSON.stringify({ channel, type: 'summary', ...summaryView(market, summary) });
}

/** One numbered subaccount event, the same text live and when resumed from history. */
export function accountEventMessage(channel: string, markets: readonly MarketSpec[], e: AccountEventRecord): string {
  const head = { channel, type: e.kind, sequence: e.seq };
  switch (e.kind) {
    case 'order': {
      const order: OrderLike = e.order;
      // The registry's own status: `triggered` is shown here, the instant a conditional order fires.
      return JSON.stringify({ ...head, order: { ...orderView(markets, order), status: order.status } });
    }
    case 'fill': {
      const f = e.fill;
      const market = markets[f.market];
      return JSON.stringify({
        ...head,
        fill: {
          symbol: market.symbol,
          orderId: f.orderId === 0 ? null : formatOrderId(f.orderId),
          side: f.side === Side.Buy ? 'buy' : 'sell',
          price: ticksToPrice(market, f.price),
          quantity: lotsToQuantity(market, f.quantity),
          notional: usd(f.notional),
          fee: usd(f.fee),
          realizedPnl: usd(f.realizedPnl),
          realizedFunding: usd(f.realizedFunding),
          maker: f.maker,
          liquidation: f.liquidation,
          time: f.time,
          sequence_number: f.marketSeq,
        },
      });
    }
    case 'position': {
      const p = e.position;
      const market = markets[p.market];
      return JSON.stringify({
        ...head,
        position: {
          symbol: market.symbol,
          quantity: lotsToQuantity(market, p.quantity),
          basis: usd(p.basis),
          fees: usd(p.fees),
          funding: usd(p.funding),
          margin: usd(p.margin),
          isolated: p.isolated,
          updatedAt: p.updatedAt,
        },
      });
    }
    case 'balance': {
      const b = e.balance;
      return JSON.stringify({ ...head, balance: { collateral: usd(b.collateral), delta: usd(b.delta), reason: b.reason, time: b.time } });
    }
  }
}
