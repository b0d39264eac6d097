/**
 * @module web/app
 *
 * The market page served at `/` (src/http/routes/web.ts bundles this file with esbuild): per
 * market the book (both sides, depth bars), recent trades, a candle chart with an interval
 * selector, and mark, index and last price with the funding rate and the 24 h summary, all live
 * from the streaming feeds (docs/feeds.md). REST is read only where a feed has no snapshot: the
 * market list, the trades before the feed's first, the candle history.
 *
 * Every time the feed (re)connects the page subscribes to the market's five channels again and
 * reloads trades and candles, so a reconnect leaves no hole; `view` numbers each such load, and
 * an answer or message for an older one (another market, another interval) is dropped.
 * While disconnected the page says so at the top, dims every figure, and reconnects by itself.
 * May import: web/ only (browser code).
 */
import { LocalBook, type BookMessage, type Level } from './book.ts';
import { CandleChart, type Candle } from './chart.ts';
import { Feed, type FeedMessage, type FeedStatus } from './feed.ts';
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
let view = 0;
let requestId = 0;
let book = new LocalBook();
const trades = new RecentTrades(TRADES_SHOWN);
const chart = new CandleChart(byId('chart'));
const feed = new Feed(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, {
  open: () => follow(),
  message: received,
  status: showStatus,
});

async function getJson<T>(path: string): Promise<T> {
  const reply = await fetch(path);
  if (!reply.ok) throw new Error(`${path}: ${reply.status} ${await reply.text()}`);
  return (await reply.json()) as T;
}

const channels = () => [`book.${market.symbol}`, `trades.${market.symbol}`, candleChannel(), `prices.${market.symbol}`, `summary.${market.symbol}`];
const candleChannel = () => `candles.${market.symbol}.${interval}`;

function subscribe(op: 'subscribe' | 'unsubscribe', list: string[]): void {
  feed.send({ op, id: ++requestId, channels: list });
}

/** Subscribes to the market's channels (each starts afresh) and reloads what the feed has no snapshot of. */
function follow(): void {
  if (!feed.live || market === undefined) return;
  view++;
  book = new LocalBook();
  renderBook();
  subscribe('subscribe', channels());
  loadTrades();
  loadCandles();
}

function loadTrades(): void {
  const current = view;
  trades.reset();
  getJson<Trade[]>(`/trades/${market.symbol}?limit=${TRADES_SHOWN}`).then((rest) => {
    if (current !== view) return;
    trades.load(rest);
    renderTrades();
  }, showNotice);
}

function loadCandles(): void {
  const current = view;
  chart.reset(market.tickSize);
  getJson<Candle[]>(`/candles/${market.symbol}?interval=${interval}&limit=${CANDLES_LOADED}`).then((history) => {
    if (current === view) chart.load(history);
  }, showNotice);
}

function selectMarket(symbol: string): void {
  const next = markets.find((m) => m.symbol === symbol) ?? markets[0];
  if (market !== undefined) subscribe('unsubscribe', channels());
  market = next;
  view++;
  ui.market.value = market.symbol;
  if (location.hash !== `#${market.symbol}`) history.replaceState(null, '', `#${market.symbol}`);
  // Nothing of the previous market stays on screen, connected or not.
  for (const cell of Object.values(ui.figures)) cell.textContent = '—';
  book = new LocalBook();
  renderBook();
  trades.reset();
  renderTrades();
  chart.reset(market.tickSize);
  follow();
}

function selectInterval(next: string): void {
  if (next === interval) return;
  subscribe('unsubscribe', [candleChannel()]);
  interval = next;
  view++;
  for (const button of ui.intervals.querySelectorAll('button')) button.setAttribute('aria-pressed', String(button.value === interval));
  subscribe('subscribe', [candleChannel()]);
  loadCandles();
}

function received(m: FeedMessage): void {
  if (m.type === 'error') return showNotice(new Error(`${m.channel ?? 'feed'}: ${m.message}`));
  if (market === undefined) return;
  const s = market.symbol;
  switch (m.channel) {
    case `book.${s}`:
      if (!book.apply(m as unknown as BookMessage)) {
        // A gap or a checksum that differs: a fresh snapshot rather than a wrong book.
        book = new LocalBook();
        subscribe('subscribe', [`book.${s}`]);
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
  const hours = market.fundingIntervalMs / 3_600_000;
  f.funding.textContent = p.fundingRate === null ? 'none settled yet' : `${(Number(p.fundingRate) * 100).toFixed(4)}% / ${hours} h`;
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

function showStatus(status: FeedStatus): void {
  const live = status.state === 'live';
  document.body.classList.toggle('stale', !live);
  ui.status.className = `status ${status.state}`;
  ui.status.textContent = status.state === 'live'
    ? 'Live'
    : status.state === 'connecting'
      ? 'Connecting to the feed…'
      : `Disconnected from the live feed (${status.reason}): the figures below are not live. Reconnecting in ${Math.round(status.retryInMs / 1000)} s…`;
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
  selectMarket(decodeURIComponent(location.hash.slice(1)));
  feed.start();
}

void start();
