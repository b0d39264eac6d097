/**
 * @module web/chart
 *
 * The candle chart: TradingView's lightweight-charts (candles, and volume below them), fed
 * like the trades list — GET /candles for the history, then the `candles.<symbol>.<interval>`
 * feed's open candle each time a trade changes it. Feed candles that arrive while GET /candles
 * is on its way are held and drawn after it; a candle older than the newest drawn is dropped
 * (the chart only updates its newest bar or appends one).
 * Its attribution logo is off: it injects a `<style>` element, which the page's
 * Content-Security-Policy refuses; the page's footer credits TradingView instead.
 * May import: lightweight-charts. Browser code: no Node module.
 */
import { CandlestickSeries, createChart, HistogramSeries, type IChartApi, type ISeriesApi, type UTCTimestamp } from 'lightweight-charts';

/** A candle as GET /candles and the feed send it: decimals as strings, `time` its start in seconds. */
export interface Candle {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

const UP = '#26a69a';
const DOWN = '#ef5350';

export class CandleChart {
  private readonly chart: IChartApi;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private newest = -1;
  private held: Candle[] | null = [];

  constructor(container: HTMLElement) {
    this.chart = createChart(container, {
      autoSize: true,
      layout: { background: { color: '#131722' }, textColor: '#b2b5be', attributionLogo: false },
      grid: { vertLines: { color: '#1e222d' }, horzLines: { color: '#1e222d' } },
      // Room right of the newest candle, so a market's first candles are not drawn against the scale.
      timeScale: { timeVisible: true, secondsVisible: false, rightOffset: 8, barSpacing: 10 },
    });
    this.candles = this.chart.addSeries(CandlestickSeries, { upColor: UP, downColor: DOWN, borderVisible: false, wickUpColor: UP, wickDownColor: DOWN });
    this.volume = this.chart.addSeries(HistogramSeries, { priceFormat: { type: 'volume' }, priceScaleId: 'volume', lastValueVisible: false, priceLineVisible: false });
    // Volume in the bottom fifth, the candles above it.
    this.volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    this.candles.priceScale().applyOptions({ scaleMargins: { top: 0.08, bottom: 0.25 } });
  }

  /** Before GET /candles is sent (a new market or interval, or a reconnect): empties the chart. */
  reset(tickSize: string): void {
    this.held = [];
    this.newest = -1;
    this.candles.setData([]);
    this.volume.setData([]);
    const decimals = tickSize.split('.')[1]?.length ?? 0;
    this.candles.applyOptions({ priceFormat: { type: 'price', precision: decimals, minMove: Number(tickSize) } });
  }

  /** GET /candles's answer, oldest first. */
  load(history: readonly Candle[]): void {
    const held = this.held ?? [];
    this.held = null;
    this.candles.setData(history.map(bar));
    this.volume.setData(history.map(volumeBar));
    this.newest = history.at(-1)?.time ?? -1;
    for (const candle of held) this.update(candle);
  }

  update(candle: Candle): void {
    if (this.held !== null) {
      this.held.push(candle);
      return;
    }
    if (candle.time < this.newest) return;
    this.newest = candle.time;
    this.candles.update(bar(candle));
    this.volume.update(volumeBar(candle));
  }
}

function bar(c: Candle) {
  return { time: c.time as UTCTimestamp, open: Number(c.open), high: Number(c.high), low: Number(c.low), close: Number(c.close) };
}

function volumeBar(c: Candle) {
  return { time: c.time as UTCTimestamp, value: Number(c.volume), color: Number(c.close) >= Number(c.open) ? `${UP}80` : `${DOWN}80` };
}
