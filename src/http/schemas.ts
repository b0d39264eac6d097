/**
 * @module http/schemas
 *
 * JSON schemas of the gateway's responses: the same objects drive the fast-json-stringify
 * serializers and the OpenAPI document. Decimals are strings; times are integers.
 */

const DECIMAL = { type: 'string', description: 'decimal string, no exponent' } as const;

export const LEVEL_SCHEMA = {
  type: 'object',
  properties: { price: DECIMAL, quantity: DECIMAL },
  required: ['price', 'quantity'],
} as const;

export const BOOK_SCHEMA = {
  title: 'OrderBook',
  type: 'object',
  properties: {
    asks: { type: 'array', items: LEVEL_SCHEMA, description: 'ascending by price' },
    bids: { type: 'array', items: LEVEL_SCHEMA, description: 'descending by price' },
    sequence_number: { type: 'integer', description: "the market's sequence number of the last event the snapshot includes" },
    time: { type: 'integer', description: 'seconds' },
  },
  required: ['asks', 'bids', 'sequence_number', 'time'],
} as const;

const MARGIN_TIER_SCHEMA = {
  type: 'object',
  properties: { notionalFloor: DECIMAL, initialMarginFraction: DECIMAL, maintenanceMarginFraction: DECIMAL },
  required: ['notionalFloor', 'initialMarginFraction', 'maintenanceMarginFraction'],
} as const;

export const MARKET_SCHEMA = {
  title: 'Market',
  type: 'object',
  properties: {
    symbol: { type: 'string' },
    base: { type: 'string' },
    quote: { type: 'string' },
    tickSize: DECIMAL,
    tickSizeMultipliers: { type: 'array', items: { type: 'integer' } },
    lotSize: DECIMAL,
    minSize: DECIMAL,
    maxLeverage: { type: 'integer' },
    initialMarginFraction: DECIMAL,
    maintenanceMarginFraction: DECIMAL,
    marginTiers: { type: 'array', items: MARGIN_TIER_SCHEMA },
    makerFee: DECIMAL,
    takerFee: DECIMAL,
    fundingIntervalMs: { type: 'integer' },
    fundingRateCap: DECIMAL,
    interestRate: DECIMAL,
    oracleFeedId: { type: 'string' },
  },
  required: ['symbol', 'tickSize', 'lotSize', 'minSize', 'maxLeverage', 'initialMarginFraction', 'maintenanceMarginFraction', 'makerFee', 'takerFee', 'oracleFeedId'],
} as const;

export const MARKETS_SCHEMA = {
  title: 'Markets',
  type: 'object',
  properties: { markets: { type: 'array', items: MARKET_SCHEMA } },
  required: ['markets'],
} as const;

export const TIME_SCHEMA = {
  title: 'ServerTime',
  type: 'object',
  properties: { serverTime: { type: 'integer', description: 'milliseconds since the Unix epoch' } },
  required: ['serverTime'],
} as const;

// ── History (public trades, candles, prices, 24h summary, account fills) ───────────────────

const NULLABLE_DECIMAL = { type: ['string', 'null'], description: 'decimal string, or null when unknown' } as const;

export const PUBLIC_TRADE_SCHEMA = {
  title: 'PublicTrade',
  type: 'object',
  properties: {
    price: DECIMAL,
    quantity: DECIMAL,
    symbol: { type: 'string' },
    side: { type: 'string', enum: ['buy', 'sell'], description: "the aggressor's side" },
    time: { type: 'integer', description: 'seconds' },
  },
  required: ['price', 'quantity', 'symbol', 'side', 'time'],
} as const;

export const PUBLIC_TRADES_SCHEMA = { title: 'PublicTrades', type: 'array', items: PUBLIC_TRADE_SCHEMA, description: 'newest first' } as const;

export const CANDLE_SCHEMA = {
  title: 'Candle',
  type: 'object',
  properties: {
    time: { type: 'integer', description: 'candle start, seconds' },
    open: DECIMAL,
    high: DECIMAL,
    low: DECIMAL,
    close: DECIMAL,
    volume: DECIMAL,
    funding_rate: { type: 'string', description: 'funding rate in force for the period, as a fraction' },
  },
  required: ['time', 'open', 'high', 'low', 'close', 'volume', 'funding_rate'],
} as const;

export const CANDLES_SCHEMA = { title: 'Candles', type: 'array', items: CANDLE_SCHEMA, description: 'ascending by time' } as const;

export const PRICE_SCHEMA = {
  title: 'Price',
  type: 'object',
  properties: {
    symbol: { type: 'string' },
    markPrice: NULLABLE_DECIMAL,
    indexPrice: NULLABLE_DECIMAL,
    lastPrice: NULLABLE_DECIMAL,
  },
  required: ['symbol', 'markPrice', 'indexPrice', 'lastPrice'],
} as const;

export const PRICES_SCHEMA = {
  title: 'Prices',
  type: 'object',
  properties: { time: { type: 'integer', description: 'seconds' }, prices: { type: 'array', items: PRICE_SCHEMA } },
  required: ['time', 'prices'],
} as const;

export const MARKET_SUMMARY_SCHEMA = {
  title: 'MarketSummary',
  type: 'object',
  properties: {
    symbol: { type: 'string' },
    open: NULLABLE_DECIMAL,
    high: NULLABLE_DECIMAL,
    low: NULLABLE_DECIMAL,
    close: NULLABLE_DECIMAL,
    lastPrice: NULLABLE_DECIMAL,
    volume: { ...DECIMAL, description: 'base quantity traded in the window' },
    quoteVolume: { ...DECIMAL, description: 'Σ price × quantity in the window' },
    change: { ...DECIMAL, description: 'close − open' },
    changePercent: { ...DECIMAL, description: '(close − open) / open × 100, 2 decimals, truncated toward zero' },
    trades: { type: 'integer', description: 'number of trades in the window' },
    openTime: { type: 'integer', description: 'start of the 24h window, seconds' },
  },
  required: ['symbol', 'open', 'high', 'low', 'close', 'lastPrice', 'volume', 'quoteVolume', 'change', 'changePercent', 'trades', 'openTime'],
} as const;

export const SUMMARY_SCHEMA = {
  title: 'Summary',
  type: 'object',
  properties: { time: { type: 'integer', description: 'seconds' }, markets: { type: 'array', items: MARKET_SUMMARY_SCHEMA } },
  required: ['time', 'markets'],
} as const;

export const ACCOUNT_FILL_SCHEMA = {
  title: 'AccountFill',
  type: 'object',
  properties: {
    price: DECIMAL,
    quantity: { ...DECIMAL, description: 'signed: positive bought, negative sold' },
    symbol: { type: 'string' },
    orderId: { type: 'string' },
    realizedExposure: DECIMAL,
    realizedFunding: DECIMAL,
    realizedPnl: DECIMAL,
    realizedPoints: DECIMAL,
    time: { type: 'integer', description: 'milliseconds' },
  },
  required: ['price', 'quantity', 'symbol', 'orderId', 'realizedExposure', 'realizedFunding', 'realizedPnl', 'realizedPoints', 'time'],
} as const;

export const ACCOUNT_FILLS_SCHEMA = { title: 'AccountFills', type: 'array', items: ACCOUNT_FILL_SCHEMA, description: 'newest first' } as const;
