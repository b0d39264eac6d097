/**
 * @module history/views
 *
 * History records as the API shows them: decimals as strings (prices via `ticksToPrice`,
 * quantities via the market's lot, money at COLLATERAL_SCALE, rates at RATE_SCALE); public
 * market-data `time` in seconds, account data `time` in milliseconds (design.md).
 * May import: config/, numeric/, engine/types, history/.
 */
import { COLLATERAL_SCALE, RATE_SCALE, ticksToPrice, type MarketSpec } from '../config/market.ts';
import { Side, formatOrderId } from '../engine/types.ts';
import { formatDecimal } from '../numeric/decimal.ts';
import type { Candle } from './candles.ts';
import type { AccountFillRecord, AccountFillView, MarketSummary, TradeRecord } from './types.ts';

/** A lot count (possibly a `bigint` sum, possibly negative) as a quantity string. */
function quantityText(market: MarketSpec, lots: bigint | number): string {
  return formatDecimal(BigInt(lots) * market.lotUnits, market.quantityScale);
}

/** ticks × lots as a quote amount string. */
function notionalText(market: MarketSpec, tickLots: bigint): string {
  return formatDecimal(tickLots * market.tickUnits * market.lotUnits, market.priceScale + market.quantityScale);
}

export function secondsOf(ms: number): number {
  return Math.floor(ms / 1000);
}

export interface PublicTradeView {
  price: string;
  quantity: string;
  symbol: string;
  /** The aggressor's side. */
  side: 'buy' | 'sell';
  time: number;
}

export function tradeView(market: MarketSpec, t: TradeRecord): PublicTradeView {
  return {
    price: ticksToPrice(market, t.price),
    quantity: quantityText(market, t.quantity),
    symbol: market.symbol,
    side: t.takerSide === Side.Buy ? 'buy' : 'sell',
    time: secondsOf(t.time),
  };
}

export interface CandleView {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  funding_rate: string;
}

export function candleView(market: MarketSpec, c: Candle): CandleView {
  return {
    time: secondsOf(c.start),
    open: ticksToPrice(market, c.open),
    high: ticksToPrice(market, c.high),
    low: ticksToPrice(market, c.low),
    close: ticksToPrice(market, c.close),
    volume: quantityText(market, c.volume),
    funding_rate: formatDecimal(c.fundingRate ?? 0n, RATE_SCALE),
  };
}

export function accountFillView(market: MarketSpec, f: AccountFillRecord): AccountFillView {
  return {
    price: ticksToPrice(market, f.price),
    quantity: quantityText(market, f.quantity),
    symbol: market.symbol,
    orderId: formatOrderId(f.orderId),
    realizedExposure: formatDecimal(f.realizedExposure, COLLATERAL_SCALE),
    realizedFunding: formatDecimal(f.realizedFunding, COLLATERAL_SCALE),
    realizedPnl: formatDecimal(f.realizedPnl, COLLATERAL_SCALE),
    realizedPoints: formatDecimal(f.realizedPoints, COLLATERAL_SCALE),
    time: f.time,
  };
}

export interface SummaryView {
  symbol: string;
  open: string | null;
  high: string | null;
  low: string | null;
  close: string | null;
  lastPrice: string | null;
  volume: string;
  quoteVolume: string;
  change: string;
  changePercent: string;
  trades: number;
  /** Start of the window, seconds. */
  openTime: number;
}

/**
 * The 24h summary. With no trade in the window, open/high/low/close are the last trade price
 * (null before the market's first trade) and volume, change and trades are zero.
 * `changePercent` = (close − open) / open × 100, two decimals, truncated toward zero.
 */
export function summaryView(market: MarketSpec, s: MarketSummary): SummaryView {
  const last = s.lastPrice === undefined ? null : ticksToPrice(market, s.lastPrice);
  const w = s.window;
  if (w === undefined) {
    return {
      symbol: market.symbol, open: last, high: last, low: last, close: last, lastPrice: last,
      volume: '0', quoteVolume: '0', change: '0', changePercent: '0', trades: 0, openTime: secondsOf(s.from),
    };
  }
  const delta = w.close - w.open;
  return {
    symbol: market.symbol,
    open: ticksToPrice(market, w.open),
    high: ticksToPrice(market, w.high),
    low: ticksToPrice(market, w.low),
    close: ticksToPrice(market, w.close),
    lastPrice: last,
    volume: quantityText(market, w.volume),
    quoteVolume: notionalText(market, w.notional),
    change: formatDecimal(BigInt(delta) * market.tickUnits, market.priceScale),
    changePercent: formatDecimal((BigInt(delta) * 10_000n) / BigInt(w.open), 2),
    trades: w.trades,
    openTime: secondsOf(s.from),
  };
}
