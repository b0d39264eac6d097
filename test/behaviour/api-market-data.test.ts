/**
 * Black-box tests of the public market-data routes on the in-process exchange (test/harness/in-process-exchange): GET /book, /trades,
 * /candles (every interval), /price, /summary, /markets, /config, /time, /openapi.json, /docs,
 * and the gateway's 404/405. Public `time` fields are seconds; query windows are milliseconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { assertDecimal, assertError, assertSecondsNow, BTC, ETH, isInteger, ok, SOL, UNSIGNED_DECIMAL } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const get = (path: string) => ex.request('GET', path);
const [maker, taker] = await fundedTraders(ex, 2, '1000000');

// The resting book of BTC (tick 0.1): three bids and three asks around 95000.
const MAKER_BIDS = [
  { price: '94999.9', quantity: '0.1' },
  { price: '94999.5', quantity: '0.2' },
  { price: '94990', quantity: '0.3' },
];
const MAKER_ASKS = [
  { price: '95000.1', quantity: '-0.1' },
  { price: '95000.5', quantity: '-0.2' },
  { price: '95010', quantity: '-0.4' },
];
// Three takers, each a trade at a higher ask, a few ms apart: the trade history in order.
const TAKER_BUY_0_1_AT_95000_1 = { price: '95000.1', quantity: '0.1' };
const TAKER_BUY_0_2_AT_95000_5 = { price: '95000.5', quantity: '0.2' };
const TAKER_BUY_0_1_AT_95010 = { price: '95010', quantity: '0.1' };

test('GET /book/{symbol}: asks ascending, bids descending, every level {price, quantity} as strings; depth; sequence_number; time in seconds', async () => {
  // in a shuffled order, so that the sort is the book's and not the arrival's
  for (const o of [MAKER_BIDS[1], MAKER_ASKS[2], MAKER_BIDS[0], MAKER_ASKS[0], MAKER_BIDS[2], MAKER_ASKS[1]]) ok(await maker.place(o));
  const book = ok(await get(`/book/${BTC}`));
  assert.deepEqual(Object.keys(book).sort(), ['asks', 'bids', 'sequence_number', 'time']);
  assert.deepEqual(book.bids, [
    { price: '94999.9', quantity: '0.1' },
    { price: '94999.5', quantity: '0.2' },
    { price: '94990', quantity: '0.3' },
  ]);
  assert.deepEqual(book.asks, [
    { price: '95000.1', quantity: '0.1' },
    { price: '95000.5', quantity: '0.2' },
    { price: '95010', quantity: '0.4' },
  ]);
  assert.ok(isInteger(book.sequence_number) && book.sequence_number > 0);
  assertSecondsNow(book.time, 'book.time');

  const top = ok(await get(`/book/${BTC}?depth=1`));
  assert.deepEqual(top.bids, [{ price: '94999.9', quantity: '0.1' }]);
  assert.deepEqual(top.asks, [{ price: '95000.1', quantity: '0.1' }]);
  assert.equal(ok(await get(`/book/${BTC}?depth=2`)).asks.length, 2);
  assert.equal(ok(await get(`/book/${BTC}?depth=5000`)).asks.length, 3);

  const [extra] = ok(await maker.place({ price: '94000', quantity: '0.01' }));
  const later = ok(await get(`/book/${BTC}`));
  assert.ok(later.sequence_number > book.sequence_number, 'the sequence number moves with the book');
  // the order's number is its last order event (rested); the snapshot also includes the level event after it
  assert.ok(extra.lastUpdateSequenceNumber > book.sequence_number && extra.lastUpdateSequenceNumber <= later.sequence_number, 'lastUpdateSequenceNumber is on the market sequence');
  ok(await maker.send('DELETE', `/account/order?orderId=${extra.orderId}`));
});

test('GET /book/{symbol}?tickSize: aggregated to 1, 2, 5, 10, 100, 1000 ticks — asks rounded up, bids down; other sizes refused', async () => {
  const plain = ok(await get(`/book/${BTC}`));
  const byOne = ok(await get(`/book/${BTC}?tickSize=0.1`));
  assert.deepEqual([byOne.bids, byOne.asks], [plain.bids, plain.asks], 'tickSize = the tick: the plain book');
  const byTen = ok(await get(`/book/${BTC}?tickSize=1`));
  assert.deepEqual(byTen.bids, [
    { price: '94999', quantity: '0.3' },
    { price: '94990', quantity: '0.3' },
  ]);
  assert.deepEqual(byTen.asks, [
    { price: '95001', quantity: '0.3' },
    { price: '95010', quantity: '0.4' },
  ]);
  const byHundredTicks = ok(await get(`/book/${BTC}?tickSize=10`));
  assert.deepEqual(byHundredTicks.bids, [{ price: '94990', quantity: '0.6' }]);
  assert.deepEqual(byHundredTicks.asks, [
    { price: '95010', quantity: '0.7' },
  ]);
  const byThousandTicks = ok(await get(`/book/${BTC}?tickSize=100&depth=1`));
  assert.deepEqual(byThousandTicks.bids, [{ price: '94900', quantity: '0.6' }]);
  assert.deepEqual(byThousandTicks.asks, [{ price: '95100', quantity: '0.7' }]);
  for (const size of ['0.2', '0.5']) assert.equal((await get(`/book/${BTC}?tickSize=${size}`)).status, 200);
  const refusal = "tickSize must be the market's tick size 0.1 times 1, 2, 5, 10, 100 or 1000";
  for (const size of ['0.3', '0.05', '1000', '-1', 'abc']) assertError(await get(`/book/${BTC}?tickSize=${size}`), 400, refusal);
});

test('GET /book/{symbol}: 100 levels a side by default, more with depth', async () => {
  const [wide] = await fundedTraders(ex, 1, '100000');
  const bids = [];
  for (let i = 0; i < 101; i++) bids.push(await wide.signedOrder({ symbol: SOL, price: (50 + i / 1000).toFixed(3), quantity: '0.01' }));
  assert.equal(ok(await wide.send('POST', '/account/orders', { orders: bids.slice(0, 100) })).orders.length, 100);
  assert.equal(ok(await wide.send('POST', '/account/orders', { orders: bids.slice(100) })).orders.length, 1);
  const book = ok(await get(`/book/${SOL}`));
  assert.equal(book.bids.length, 100);
  assert.equal(book.bids[0].price, '50.1');
  assert.equal(book.bids[99].price, '50.001');
  assert.equal(ok(await get(`/book/${SOL}?depth=101`)).bids.length, 101);
  assert.deepEqual(ok(await get(`/book/${SOL}?depth=101`)).bids.at(-1), { price: '50', quantity: '0.01' });
  ok(await wide.send('DELETE', `/account/orders?account=${wide.address}&subaccountIndex=0`));
  assert.deepEqual(ok(await get(`/book/${SOL}`)).bids, []);
});

test('GET /book/{symbol}: Depth must be between 1 and 5000; Symbol not found; a bare base names its market', async () => {
  for (const depth of ['0', '5001', '-1', 'ten', '1.5']) assertError(await get(`/book/${BTC}?depth=${depth}`), 400, 'Depth must be between 1 and 5000');
  assertError(await get('/book/DOGE-USD-PERP'), 404, 'Symbol not found');
  const bare = ok(await get('/book/BTC?depth=1'));
  assert.deepEqual(bare.bids, [{ price: '94999.9', quantity: '0.1' }]);
});

test('GET /orderbook: a missing symbol is a 400 naming it, an unknown one 404 Symbol not found', async () => {
  assertError(await get('/orderbook'), 400, 'Missing query parameter symbol');
  assertError(await get('/orderbook?depth=1'), 400, 'Missing query parameter symbol');
  assertError(await get('/orderbook?symbol='), 400, 'Missing query parameter symbol');
  assertError(await get('/orderbook?symbol=DOGE-USD-PERP'), 404, 'Symbol not found');
  assert.deepEqual(ok(await get(`/orderbook?symbol=${BTC}&depth=1`)).bids, [{ price: '94999.9', quantity: '0.1' }]);
});

// The three trades, with a millisecond mark between each (the trades' `from`/`to` are ms).
const marks: number[] = [];

test('GET /trades/{symbol}: newest first, {price, quantity, symbol, time in seconds}; limit, from, to', async () => {
  assert.deepEqual(ok(await get(`/trades/${BTC}`)), []);
  for (const o of [TAKER_BUY_0_1_AT_95000_1, TAKER_BUY_0_2_AT_95000_5, TAKER_BUY_0_1_AT_95010]) {
    await ex.advance(20);
    marks.push(ex.now());
    await ex.advance(20);
    const [order] = ok(await taker.place(o));
    assert.equal(order.status, 'filled');
  }
  const trades = ok(await get(`/trades/${BTC}`));
  assert.deepEqual(
    trades.map((t: any) => [t.price, t.quantity, t.symbol]),
    [
      ['95010', '0.1', BTC],
      ['95000.5', '0.2', BTC],
      ['95000.1', '0.1', BTC],
    ],
  );
  for (const t of trades) {
    assertDecimal(t.price, 'trade.price', UNSIGNED_DECIMAL);
    assertDecimal(t.quantity, 'trade.quantity', UNSIGNED_DECIMAL);
    assertSecondsNow(t.time, 'trade.time');
  }
  assert.ok(trades[0].time >= trades[2].time);

  assert.deepEqual(ok(await get(`/trades/${BTC}?limit=2`)).map((t: any) => t.price), ['95010', '95000.5']);
  assert.deepEqual(ok(await get(`/trades/${BTC}?limit=1`)).map((t: any) => t.price), ['95010']);
  assert.deepEqual(ok(await get(`/trades/${BTC}?from=${marks[1]}`)).map((t: any) => t.price), ['95010', '95000.5']);
  assert.deepEqual(ok(await get(`/trades/${BTC}?to=${marks[1]}`)).map((t: any) => t.price), ['95000.1']);
  assert.deepEqual(ok(await get(`/trades/${BTC}?from=${marks[1]}&to=${marks[2]}`)).map((t: any) => t.price), ['95000.5']);
  assert.deepEqual(ok(await get(`/trades/${BTC}?from=${ex.now() + 60_000}`)), []);
  assert.deepEqual(ok(await get(`/trades/${ETH}`)), []);
  assert.deepEqual(ok(await get('/trades/BTC?limit=1')).map((t: any) => t.price), ['95010']);
});

test('GET /trades/{symbol}: Limit must be between 1 and 5000, got <n>; Symbol not found; bad windows', async () => {
  for (const n of ['0', '5001', '-3', 'many']) assertError(await get(`/trades/${BTC}?limit=${n}`), 400, `Limit must be between 1 and 5000, got ${n}`);
  assert.equal((await get(`/trades/${BTC}?limit=5000`)).status, 200);
  assertError(await get('/trades/DOGE-USD-PERP'), 404, 'Symbol not found');
  assertError(await get(`/trades/${BTC}?from=-1`), 400, 'from must be an integer >= 0 (milliseconds), got -1');
  assertError(await get(`/trades/${BTC}?to=soon`), 400, 'to must be an integer >= 0 (milliseconds), got soon');
});

const INTERVALS: Array<[string, number]> = [
  ['1m', 60], ['3m', 180], ['5m', 300], ['15m', 900], ['30m', 1800], ['1h', 3600],
  ['2h', 7200], ['4h', 14400], ['8h', 28800], ['12h', 43200], ['1d', 86400],
];

test('GET /candles/{symbol}: every interval holds the three trades — open, high, low, close, volume, funding_rate as strings, time the start in seconds', async () => {
  for (const [interval, seconds] of INTERVALS) {
    const candles = ok(await get(`/candles/${BTC}?interval=${interval}`));
    assert.ok(candles.length >= 1 && candles.length <= 2, `${interval}: the trades fall in one candle (two at a boundary)`);
    for (const c of candles) {
      assert.deepEqual(Object.keys(c).sort(), ['close', 'funding_rate', 'high', 'low', 'open', 'time', 'volume']);
      for (const f of ['open', 'high', 'low', 'close', 'volume']) assertDecimal(c[f], `${interval} candle.${f}`, UNSIGNED_DECIMAL);
      assertDecimal(c.funding_rate, `${interval} candle.funding_rate`);
      assert.ok(isInteger(c.time), `${interval} candle.time is an integer`);
      const nowSeconds = ex.now() / 1000;
      assert.ok(c.time <= nowSeconds && c.time > nowSeconds - seconds - 120, `${interval}: candle.time ${c.time} is a start in seconds within the last interval`);
      assert.equal(c.time % seconds, 0, `${interval}: time is the UTC-aligned start`);
    }
    for (let i = 1; i < candles.length; i++) assert.ok(candles[i].time > candles[i - 1].time, 'ascending');
    assert.equal(candles[0].open, '95000.1');
    assert.equal(candles.at(-1).close, '95010');
    const volume = candles.reduce((s: number, c: any) => s + Number(c.volume) * 10, 0);
    assert.equal(Math.round(volume), 4, `${interval}: volume 0.4`);
    if (candles.length === 1) assert.deepEqual(candles[0], { time: candles[0].time, open: '95000.1', high: '95010', low: '95000.1', close: '95010', volume: '0.4', funding_rate: candles[0].funding_rate });
  }
  const byDefault = ok(await get(`/candles/${BTC}`));
  assert.deepEqual(byDefault, ok(await get(`/candles/${BTC}?interval=1m`)), 'the default interval is 1m');
  assert.deepEqual(ok(await get(`/candles/${ETH}?interval=1h`)), []);
});

test('GET /candles/{symbol}: from / to in milliseconds, limit keeps the newest, bare base name; Market <symbol> not found', async () => {
  const [day] = ok(await get(`/candles/${BTC}?interval=1d`));
  const startMs = day.time * 1000;
  assert.deepEqual(ok(await get(`/candles/${BTC}?interval=1d&from=${startMs}`)), [day]);
  assert.deepEqual(ok(await get(`/candles/${BTC}?interval=1d&from=${startMs + 1}`)), [], 'from: started on or after');
  assert.deepEqual(ok(await get(`/candles/${BTC}?interval=1d&to=${startMs}`)), [], 'to: started before');
  assert.deepEqual(ok(await get(`/candles/${BTC}?interval=1d&to=${startMs + 1}`)), [day]);
  const minutes = ok(await get(`/candles/${BTC}?interval=1m`));
  assert.deepEqual(ok(await get(`/candles/${BTC}?interval=1m&limit=1`)), [minutes.at(-1)]);
  assert.deepEqual(ok(await get('/candles/BTC?interval=1d')), [day], 'the spec samples a bare base name');
  assertError(await get('/candles/DOGE?interval=1m'), 404, 'Market DOGE not found');
  assertError(await get('/candles/DOGE-USD-PERP'), 404, 'Market DOGE-USD-PERP not found');
  for (const n of ['0', '5001']) assertError(await get(`/candles/${BTC}?limit=${n}`), 400, `Limit must be between 1 and 5000, got ${n}`);
  assertError(await get(`/candles/${BTC}?interval=2m`), 400, 'Interval must be one of 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, got 2m');
  assertError(await get(`/candles/${BTC}?from=-5`), 400, 'from must be an integer >= 0 (milliseconds), got -5');
});

test('GET /price: every market with markPrice, indexPrice, lastPrice (decimal strings or null), time in seconds; ?symbol', async () => {
  const r = await ex.operator('POST', '/operator/index-price', { symbol: ETH, price: '3500.25' });
  assert.equal(r.status, 200, r.text);
  const prices = ok(await get('/price'));
  assertSecondsNow(prices.time, 'price.time');
  assert.deepEqual(prices.prices.map((p: any) => p.symbol), [BTC, ETH, SOL]);
  for (const p of prices.prices) {
    assert.deepEqual(Object.keys(p).sort(), ['indexHeld', 'indexPrice', 'lastPrice', 'markPrice', 'symbol']);
    for (const f of ['markPrice', 'indexPrice', 'lastPrice']) if (p[f] !== null) assertDecimal(p[f], `${p.symbol}.${f}`, UNSIGNED_DECIMAL);
  }
  const [btc, eth, sol] = prices.prices;
  assert.equal(btc.lastPrice, '95010');
  assert.equal(eth.indexPrice, '3500.25');
  assert.equal(eth.lastPrice, null);
  assert.equal(sol.lastPrice, null);
  const one = ok(await get(`/price?symbol=${ETH}`));
  assert.deepEqual(one.prices, [eth]);
  assertError(await get('/price?symbol=DOGE-USD-PERP'), 404, 'Symbol not found');
});

test('GET /summary: the last 24 hours per market', async () => {
  const summary = ok(await get('/summary'));
  assertSecondsNow(summary.time, 'summary.time');
  assert.deepEqual(summary.markets.map((m: any) => m.symbol), [BTC, ETH, SOL]);
  const [btc, eth] = summary.markets;
  assert.deepEqual(btc, {
    symbol: BTC,
    open: '95000.1',
    high: '95010',
    low: '95000.1',
    close: '95010',
    lastPrice: '95010',
    volume: '0.4',
    quoteVolume: '38001.11',
    change: '9.9',
    changePercent: '0.01',
    trades: 3,
    openTime: btc.openTime,
  });
  assert.ok(isInteger(btc.openTime) && Math.abs(btc.openTime - (summary.time - 86400)) <= 60, 'openTime: the window start, seconds');
  assert.equal(eth.trades, 0);
  assert.equal(eth.open, null);
  assert.equal(eth.volume, '0');
  assert.deepEqual(ok(await get(`/summary?symbol=${BTC}`)).markets, [btc]);
  assertError(await get('/summary?symbol=DOGE-USD-PERP'), 404, 'Symbol not found');
});

test('GET /markets: {markets} with the signing-relevant parameters as decimal strings', async () => {
  const { markets } = ok(await get('/markets'));
  assert.deepEqual(markets.map((m: any) => m.symbol), [BTC, ETH, SOL]);
  const btc = markets[0];
  assert.equal(btc.tickSize, '0.1');
  assert.equal(btc.lotSize, '0.0001');
  assert.equal(btc.minSize, '0.0001');
  assert.equal(btc.maxLeverage, 50);
  assert.deepEqual(btc.tickSizeMultipliers, [1, 2, 5, 10, 100, 1000]);
  for (const m of markets) {
    for (const f of ['tickSize', 'lotSize', 'minSize', 'initialMarginFraction', 'maintenanceMarginFraction', 'takerFee', 'fundingRateCap', 'interestRate']) assertDecimal(m[f], `${m.symbol}.${f}`, UNSIGNED_DECIMAL);
    assertDecimal(m.makerFee, `${m.symbol}.makerFee`);
    assert.ok(isInteger(m.maxLeverage) && isInteger(m.fundingIntervalMs));
    assert.match(m.oracleFeedId, /^0x[0-9a-f]{64}$/);
  }
});

test('GET /config: the signing domain and the four types, markets and limits', async () => {
  const config = ok(await get('/config'));
  assert.equal(config.profile, 'testnet');
  assert.ok(isInteger(config.chainId));
  assert.match(config.verifyingContract, /^0x[0-9a-fA-F]{40}$/);
  assert.deepEqual(config.eip712.domain, { name: config.eip712.domain.name, version: config.eip712.domain.version, chainId: config.chainId, verifyingContract: config.verifyingContract });
  assert.deepEqual(Object.keys(config.eip712.types).sort(), ['Delegation', 'MarginUpdate', 'Order', 'Transfer']);
  assert.deepEqual(config.markets, ok(await get('/markets')).markets);
  assert.deepEqual(config.limits.bookDepth, { min: 1, max: 5000, default: 100 });
  assert.deepEqual(config.limits.fillsLimit, { min: 1, max: 5000, default: 50 });
  // Every listing's default is published (trades, candles and orders had none: a client had to read the docs).
  assert.deepEqual(config.limits.tradesLimit, { min: 1, max: 5000, default: 100 });
  assert.deepEqual(config.limits.candlesLimit, { min: 1, max: 5000, default: 1000 });
  assert.deepEqual(config.limits.ordersLimit, { min: 1, max: 500, default: 500 });
  assert.equal(config.limits.nonceWindow, 100);
  assert.equal(config.limits.requestsPerSecondPerAccount, 200);
});

test('GET /time: {serverTime} in milliseconds', async () => {
  const before = ex.now();
  const { serverTime } = ok(await get('/time'));
  assert.ok(isInteger(serverTime) && serverTime >= before - 5 && serverTime <= ex.now() + 5);
});

test('GET /openapi.json documents every route of the gateway; GET /docs is a self-contained HTML page', async () => {
  const doc = ok(await get('/openapi.json'));
  assert.match(doc.openapi, /^3\.1/);
  const routes: Array<[string, string]> = [
    ['get', '/config'], ['get', '/markets'], ['get', '/time'], ['get', '/book/{symbol}'], ['get', '/candles/{symbol}'], ['get', '/trades/{symbol}'], ['get', '/price'], ['get', '/summary'],
    ['post', '/auth/challenge'], ['post', '/auth/login'],
    ['get', '/account/stats'], ['get', '/account/positions'], ['get', '/account/fills'], ['get', '/account/balance'], ['get', '/account/margin'], ['post', '/account/margin'],
    ['post', '/account/transfer'], ['get', '/account/transfer/history'], ['get', '/account/delegates'], ['post', '/account/delegates'], ['get', '/account/signers'], ['get', '/account/nonce'],
    ['post', '/account/order'], ['post', '/account/orders'], ['get', '/account/order'], ['delete', '/account/order'], ['post', '/account/orders/cancel'], ['delete', '/account/orders'], ['get', '/account/orders'],
  ];
  const missing = routes.filter(([method, path]) => doc.paths?.[path]?.[method] === undefined).map(([m, p]) => `${m.toUpperCase()} ${p}`);
  assert.deepEqual(missing, [], 'routes missing from the OpenAPI document');
  const docs = await get('/docs');
  assert.equal(docs.status, 200);
  assert.match(docs.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(docs.text, /<html/i);
  assert.doesNotMatch(docs.text, /<script|src="http/i, 'nothing loaded from elsewhere');
  assert.ok(docs.text.includes('/account/orders/cancel'));
});

test('unknown route: 404 Route not found: <path>; known route, other method: 405 with Allow', async () => {
  assertError(await get('/nowhere'), 404, 'Route not found: /nowhere');
  const wrong = await ex.request('POST', `/book/${BTC}`, {});
  assertError(wrong, 405, 'Method POST not allowed on this route');
  assert.equal(wrong.headers.get('allow'), 'GET, HEAD, OPTIONS');
});

test('a known path with a trailing slash is 404 Route not found, not a 405 that names the method it refuses in Allow', async () => {
  // GET /markets/ was answered 405 `Method GET not allowed on this route` with `Allow: GET, …`:
  // the route table does not serve the slashed path, so the honest answer is that it is unknown.
  for (const path of ['/markets/', `/book/${BTC}/`, '/account/order/']) {
    assertError(await get(path), 404, `Route not found: ${path}`);
    assert.equal((await ex.request('OPTIONS', path)).status, 404, `OPTIONS ${path}`);
  }
});
