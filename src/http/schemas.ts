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
