/**
 * @module web/app
 *
 * The market page served at `/` (src/http/routes/web.ts bundles this file with esbuild): per
 * market the book (both sides, depth bars), recent trades, a candle chart with an interval
 * selector, and mark, index and last price with the funding rate and the 24 h summary, all live
 * from the streaming feeds (docs/feeds.md). REST is read only where a feed has no snapshot: the
 * market list, the trades before the feed's first, the candle history.
 *
 * The connection is the client's (client/feeds): it reconnects by itself and subscribes again
 * to every channel the page follows. Each time the server confirms a `trades.` or `candles.`
 * subscription (at the first connection, after every reconnect, on a new market or interval)
 * the page reloads that list over REST, so a reconnect leaves no hole; a REST answer that a
 * newer load or another market has overtaken is dropped.
 * While disconnected the page says so at the top, dims every figure, and waits for the feed.
 * May import: web/, client/feeds (browser code: no Node module).
 */
import { LocalBook, type BookMessage, type Level } from './book.ts';
import { CandleChart, type Candle } from './chart.ts';
import { Feed, type FeedMessage } from '../client/feeds.ts';
import { RecentTrades, type Trade } from './trades.ts';

interface Market {
  symbol: string;
  tickSize: string;
  fundingIntervalMs: number;
}

const INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'];
const BOOK_LEVELS = 12;
const TRADES_SHOWN = 40;
const CANDLES_LOADED = 500;

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  market: byId<HTMLSelectElement>('market'),
  status: byId('status'),
  notice: byId('notice'),
  intervals: byId('intervals'),
  asks: byId('asks'),
  bids: byId('bids'),
  spread: byId('spread'),
  trades: byId('trades'),
  figures: {
    mark: byId('mark'), index: byId('index'), last: byId('last'), funding: byId('funding'),
    change: byId('change'), volume: byId('volume'),
  },
};

let markets: Market[] = [];
let market: Market;
let interval = INTERVALS[0];
/** Numbers each REST load: an answer to an older one is dropped. */
let tradesLoad = 0;
let candlesLoad = 0;
let book = new LocalBook();
const trades = new RecentTrades(TRADES_SHOWN);
const chart = new CandleChart(byId('chart'));
let feed: Feed;

async function getJson<T>(path: string): Promise<T> {
  const reply = await fetch(path);
  if (!reply.ok) throw new Error(`${path}: ${reply.status} ${await reply.text()}`);
  return (await reply.json()) as T;
}

const channels = () => [`book.${market.symbol}`, `trades.${market.symbol}`, candleChannel(), `prices.${market.symbol}`, `summary.${market.symbol}`];
const candleChannel = () => `candles.${market.symbol}.${interval}`;

/** Once the feed follows the trades (its trades from now on are held), the ones before come from REST. */
function loadTrades(): void {
  const current = ++tradesLoad;
  trades.reset();
  getJson<Trade[]>(`/trades/${market.symbol}?limit=${TRADES_SHOWN}`).then((rest) => {
    if (current !== tradesLoad) return;
    trades.load(rest);
    renderTrades();
  }, showNotice);
}

/** Once the feed follows the candles (its newest, then each change, held until drawn), the history comes from REST. */
function loadCandles(): void {
  const current = ++candlesLoad;
  chart.reset(market.tickSize);
  getJson<Candle[]>(`/candles/${market.symbol}?interval=${interval}&limit=${CANDLES_LOADED}`).then((history) => {
    if (current === candlesLoad) chart.load(history);
  }, showNotice);
}

function selectMarket(symbol: string): void {
  const next = markets.find((m) => m.symbol === symbol) ?? markets[0];
  if (market !== undefined) feed.unsubscribe(channels());
  market = next;
  tradesLoad++;
  candlesLoad++;
  ui.market.value = market.symbol;
  if (location.hash !== `#${market.symbol}`) history.replaceState(null, '', `#${market.symbol}`);
  // Nothing of the previous market stays on screen, connected or not.
  for (const cell of Object.values(ui.figures)) cell.textContent = '—';
  book = new LocalBook();
  renderBook();
  trades.reset();
  renderTrades();
  chart.reset(market.tickSize);
  feed.subscribe(channels());
}

function selectInterval(next: string): void {
  if (next === interval) return;
  feed.unsubscribe([candleChannel()]);
  interval = next;
  candlesLoad++;
  for (const button of ui.intervals.querySelectorAll('button')) button.setAttribute('aria-pressed', String(button.value === interval));
  chart.reset(market.tickSize);
  feed.subscribe([candleChannel()]);
}

function received(m: FeedMessage): void {
  if (m.type === 'error') return showNotice(new Error(`${m.channel ?? 'feed'}: ${m.message}`));
  if (market === undefined) return;
  const s = market.symbol;
  if (m.type === 'subscribed') {
    const names = m.channels as string[];
    if (names.includes(`trades.${s}`)) loadTrades();
    if (names.includes(candleChannel())) loadCandles();
    return;
  }
  switch (m.channel) {
    case `book.${s}`:
      // Deltas still on their way before the snapshot of a new subscription: the snapshot has them.
      if (m.type === 'delta' && book.sequence < 0) return;
      if (!book.apply(m as unknown as BookMessage)) {
        // A gap or a checksum that differs: a fresh snapshot rather than a wrong book.
        book = new LocalBook();
        feed.subscribe([`book.${s}`]);
      }
      return scheduleBook();
    case `trades.${s}`:
      trades.add(m.trades as Trade[]);
      return renderTrades();
    case candleChannel():
      return chart.update(m.candle as Candle);
    case `prices.${s}`:
      return renderPrices(m as unknown as Prices);
    case `summary.${s}`:
      return renderSummary(m as unknown as Summary);
  }
}

// ── rendering ────────────────────────────────────────────────────────────────────────────────

function element(tag: string, className: string, text = ''): HTMLElement {
  const e = document.createElement(tag);
  e.className = className;
  e.textContent = text;
  return e;
}

let bookDue = false;
/** Many deltas can come in one frame: the book is drawn once per animation frame. */
function scheduleBook(): void {
  if (bookDue) return;
  bookDue = true;
  requestAnimationFrame(() => {
    bookDue = false;
    renderBook();
  });
}

function renderBook(): void {
  const asks = book.best('asks', BOOK_LEVELS);
  const bids = book.best('bids', BOOK_LEVELS);
  const cumulative = (levels: Level[]) => {
    let sum = 0;
    return levels.map(([, q]) => (sum += Number(q)));
  };
  const askTotals = cumulative(asks);
  const bidTotals = cumulative(bids);
  const deepest = Math.max(askTotals.at(-1) ?? 0, bidTotals.at(-1) ?? 0) || 1;
  const rows = (levels: Level[], totals: number[], side: 'ask' | 'bid') =>
    levels.map(([price, quantity], i) => {
      const row = element('div', `level ${side}`);
      const bar = element('span', 'depth');
      // CSSOM, not a style attribute: the Content-Security-Policy allows it.
      bar.style.width = `${(100 * totals[i]) / deepest}%`;
      row.append(bar, element('span', 'price', price), element('span', 'quantity', quantity), element('span', 'total', formatAmount(totals[i])));
      return row;
    });
  ui.asks.replaceChildren(...rows(asks, askTotals, 'ask').reverse());
  ui.bids.replaceChildren(...rows(bids, bidTotals, 'bid'));
  const decimals = market === undefined ? 0 : (market.tickSize.split('.')[1]?.length ?? 0);
  ui.spread.textContent = asks.length > 0 && bids.length > 0
    ? `spread ${(Number(asks[0][0]) - Number(bids[0][0])).toFixed(decimals)}`
    : book.sequence < 0 ? 'loading…' : 'one side empty';
}

function formatAmount(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 6 });
}

function renderTrades(): void {
  ui.trades.replaceChildren(
    ...trades.items.map((t) => {
      const row = element('div', `trade ${t.side}`);
      row.append(element('span', 'price', t.price), element('span', 'quantity', t.quantity), element('span', 'time', new Date(t.time * 1000).toLocaleTimeString('en-GB')));
      return row;
    }),
  );
}

interface Prices {
  markPrice: string | null;
  indexPrice: string | null;
  lastPrice: string | null;
  fundingRate: string | null;
}

function renderPrices(p: Prices): void {
  const f = ui.figures;
  f.mark.textContent = p.markPrice ?? '—';
  f.index.textContent = p.indexPrice ?? '—';
  f.last.textContent = p.lastPrice ?? '—';
  f.funding.textContent = p.fundingRate === null ? 'none settled yet' : `${(Number(p.fundingRate) * 100).toFixed(4)}% / ${duration(market.fundingIntervalMs)}`;
}

/** A funding interval as people say it: 8 h, 10 min, 10 s (the demo settles every 10 s). */
function duration(ms: number): string {
  if (ms >= 3_600_000) return `${ms / 3_600_000} h`;
  if (ms >= 60_000) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

interface Summary {
  changePercent: string;
  volume: string;
}

function renderSummary(s: Summary): void {
  ui.figures.change.textContent = `${Number(s.changePercent) > 0 ? '+' : ''}${s.changePercent}%`;
  ui.figures.change.className = Number(s.changePercent) < 0 ? 'down' : 'up';
  ui.figures.volume.textContent = s.volume;
}

function showStatus(state: 'open' | 'closed'): void {
  const live = state === 'open';
  document.body.classList.toggle('stale', !live);
  ui.status.className = `status ${live ? 'live' : 'disconnected'}`;
  ui.status.textContent = live ? 'Live' : 'Disconnected from the live feed: the figures below are not live. Reconnecting…';
  if (live) showNotice(null);
}

function showNotice(error: unknown): void {
  ui.notice.textContent = error === null ? '' : String(error instanceof Error ? error.message : error);
  ui.notice.hidden = error === null;
}

// ── start ────────────────────────────────────────────────────────────────────────────────────

async function start(): Promise<void> {
  for (const name of INTERVALS) {
    const button = element('button', '', name) as HTMLButtonElement;
    button.value = name;
    button.type = 'button';
    button.setAttribute('aria-pressed', String(name === interval));
    button.addEventListener('click', () => selectInterval(name));
    ui.intervals.append(button);
  }
  for (;;) {
    try {
      markets = (await getJson<{ markets: Market[] }>('/markets')).markets;
      break;
    } catch (error) {
      showNotice(error);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
  ui.market.replaceChildren(...markets.map((m) => Object.assign(document.createElement('option'), { value: m.symbol, textContent: m.symbol })));
  ui.market.addEventListener('change', () => selectMarket(ui.market.value));
  addEventListener('hashchange', () => selectMarket(decodeURIComponent(location.hash.slice(1))));
  feed = new Feed({ url: location.origin, webSocket: (url) => new WebSocket(url) });
  feed.onState(showStatus);
  feed.onMessage(received);
  selectMarket(decodeURIComponent(location.hash.slice(1)));
}

void start();
