/**
 * The market page at `/`, in a real browser (headless Chromium): after a few signed trades it
 * shows the book exactly as GET /book has it (both sides, depth bars), the trades, the prices
 * and a chart with candles drawn; a trade made while it is open appears without a reload (the
 * feeds, not REST); it runs under its Content-Security-Policy (only this origin) with no error
 * in the console; when the network drops it says plainly that the feed is disconnected, and
 * once the network is back it is live again by itself, showing what happened meanwhile.
 *
 * `PAGE_SCREENSHOT=FILE` saves the page as it is after the first trades. (The README's picture,
 * docs/page.png, is the page on `npm run demo` after a few minutes.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import { startTestExchange, Trader, type ApiClient, fundedTraders } from './harness.ts';
import { launchBrowser } from './browser.ts';
import { startRelay } from './tcp-relay.ts';

const SYMBOL = 'BTC-USD-PERP';

/** The levels the page shows, best first, as `price×quantity`. */
async function shownBook(page: Page): Promise<{ asks: string[]; bids: string[] }> {
  const side = (id: string) => page.locator(`#${id} .level`).evaluateAll((rows) => rows.map((r) => `${r.children[1].textContent}×${r.children[2].textContent}`));
  return { asks: (await side('asks')).reverse(), bids: await side('bids') };
}

async function exchangeBook(ex: ApiClient, symbol: string): Promise<{ asks: string[]; bids: string[] }> {
  const book = (await ex.request('GET', `/book/${symbol}?depth=12`)).json();
  const side = (levels: { price: string; quantity: string }[]) => levels.map((l) => `${l.price}×${l.quantity}`);
  return { asks: side(book.asks), bids: side(book.bids) };
}

/** Waits until the page shows the exchange's book (deltas may still be on their way). */
async function untilBookShown(page: Page, ex: ApiClient, symbol = SYMBOL): Promise<void> {
  const expected = await exchangeBook(ex, symbol);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const shown = await shownBook(page);
    if (JSON.stringify(shown) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.deepEqual(shown, expected, 'the page shows the book GET /book shows');
    await page.waitForTimeout(100);
  }
}

/** Polls `condition` (the page is read from here: the test holds no DOM code) until it holds or `what` fails after 10 s. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`no ${what} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Pixels of the chart drawn in the candles' colours (up #26a69a, down #ef5350): the candles themselves, not the grid or the axes. */
async function candlePixels(page: Page): Promise<number> {
  const png = PNG.sync.read(await page.locator('#chart').screenshot());
  const near = (i: number, [r, g, b]: number[]) => Math.abs(png.data[i] - r) + Math.abs(png.data[i + 1] - g) + Math.abs(png.data[i + 2] - b) < 30;
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) if (near(i, [0x26, 0xa6, 0x9a]) || near(i, [0xef, 0x53, 0x50])) count++;
  return count;
}

test('the market page shows the live book, trades, prices and candles, and reconnects by itself', { timeout: 120_000 }, async (t) => {
  // Chromium starts while the exchange starts and the trades are made.
  const browserReady = launchBrowser();
  t.after(async () => (await browserReady).close());
  const ex = await startTestExchange();
  // The browser reaches the exchange through a relay, to cut the network below.
  const relay = await startRelay(ex.exchange.port);
  t.after(() => relay.close());
  const [maker, taker] = await fundedTraders(ex, 2, '100000');
  const placed = async (trader: Trader, price: string, quantity: string) => {
    const r = await trader.place({ symbol: SYMBOL, price, quantity });
    assert.equal(r.status, 200, r.text);
  };
  await Promise.all([
    ...['95010', '95020', '95030', '95040', '95050'].map((price) => placed(maker, price, '-0.02')),
    ...['94990', '94980', '94970', '94960', '94950'].map((price) => placed(maker, price, '0.02')),
  ]);
  // Trades up and down in one minute: a candle with a body and wicks.
  await placed(taker, '95010', '0.005');
  await placed(taker, '94990', '-0.005');
  await placed(taker, '95020', '0.03');
  await placed(taker, '94980', '-0.025');

  const page = await (await browserReady).newPage({ viewport: { width: 1280, height: 720 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));

  const response = await page.goto(`${relay.url}/`);
  assert.equal(response?.status(), 200);
  assert.equal(response?.headers()['content-security-policy']?.startsWith("default-src 'self'"), true, 'only this origin is allowed');
  await page.waitForSelector('#status.live');
  await page.locator('#chart canvas').first().waitFor();
  await untilBookShown(page, ex);
  const book = await shownBook(page);
  assert.ok(book.asks.length > 0 && book.bids.length > 0, 'both sides of the book are shown');
  assert.equal(await page.locator('#asks .depth').count(), book.asks.length, 'every level has its depth bar');

  const restTrades = (await ex.request('GET', `/trades/${SYMBOL}`)).json();
  const tradeRows = page.locator('#trades .trade');
  await until(async () => (await tradeRows.count()) === restTrades.length, `${restTrades.length} trades shown`);
  assert.equal(await page.locator('#trades .trade .price').first().textContent(), restTrades[0].price, 'newest trade first');
  const prices = (await ex.request('GET', '/price')).json().prices.find((p: { symbol: string }) => p.symbol === SYMBOL);
  await until(async () => (await page.locator('#last').textContent()) === prices.lastPrice, `last price ${prices.lastPrice} shown`);
  assert.notEqual(await page.locator('#mark').textContent(), '—', 'the mark price is shown');
  assert.notEqual(await page.locator('#index').textContent(), '—', 'the index price is shown');

  // Lightweight-charts draws on the next animation frames: poll until the candles are there.
  await until(async () => (await candlePixels(page)) >= 100, 'candles drawn on the chart (100 pixels in their colours)');
  const screenshot = await page.screenshot();
  const shot = PNG.sync.read(screenshot);
  const colours = new Set<number>();
  for (let i = 0; i < shot.data.length; i += 4) colours.add(shot.data.readUInt32BE(i));
  assert.ok(colours.size > 50, `the screenshot is not blank (${colours.size} colours)`);
  if (process.env.PAGE_SCREENSHOT) writeFileSync(process.env.PAGE_SCREENSHOT, screenshot);

  // Live, not loaded once: a trade made now reaches the open page.
  await placed(taker, '95030', '0.005');
  await until(async () => (await tradeRows.count()) === restTrades.length + 1, 'the new trade shown');
  await untilBookShown(page, ex);

  // Another interval: the same trades in a 5-minute candle.
  await page.click('#intervals button[value="5m"]');
  await until(async () => (await page.locator('#intervals button[aria-pressed="true"]').textContent()) === '5m', '5m selected');
  await until(async () => (await candlePixels(page)) >= 100, 'the 5m candle drawn');
  // Another market: its own (empty) book and trades, its own mark; nothing of BTC stays.
  await page.selectOption('#market', 'ETH-USD-PERP');
  const ethMark = (await ex.request('GET', '/price')).json().prices.find((p: { symbol: string }) => p.symbol === 'ETH-USD-PERP').markPrice;
  await until(async () => (await page.locator('#mark').textContent()) === ethMark, `ETH's mark ${ethMark} shown`);
  await untilBookShown(page, ex, 'ETH-USD-PERP');
  assert.equal(await tradeRows.count(), 0, 'no trades in ETH');
  await page.selectOption('#market', SYMBOL);
  await untilBookShown(page, ex);
  await until(async () => (await tradeRows.count()) === restTrades.length + 1, 'BTC trades shown again');

  // The network drops: the page says so, plainly, and dims what it shows.
  relay.cut();
  await page.waitForSelector('#status.disconnected');
  assert.match((await page.locator('#status').textContent()) ?? '', /^Disconnected from the live feed: the figures below are not live\. Reconnecting/);
  assert.equal(await page.locator('body.stale').count(), 1);
  // What happens meanwhile is shown once the page is back, by itself: it subscribes again and reloads.
  await placed(taker, '95040', '0.005');
  await placed(maker, '94940', '0.01');
  relay.restore();
  await page.waitForSelector('#status.live', { timeout: 15_000 });
  await untilBookShown(page, ex);
  const tradesNow = (await ex.request('GET', `/trades/${SYMBOL}`)).json();
  assert.equal(tradesNow.length, restTrades.length + 2);
  await until(async () => (await tradeRows.count()) === tradesNow.length, 'the trade made while disconnected shown');
  assert.deepEqual(await tradeRows.locator('.price').allTextContents(), tradesNow.map((x: { price: string }) => x.price));

  // A refused resource or script under the Content-Security-Policy is a console error; while the
  // network is cut, Chromium logs the failed WebSocket attempts (the reconnecting), which are expected.
  const unexpected = errors.filter((e) => !/WebSocket connection to .* failed/.test(e));
  assert.deepEqual(unexpected, [], 'no error in the console');
});
