/**
 * @module http/schemas
 *
 * JSON schemas of the gateway's responses: the same objects drive the fast-json-stringify
 * serializers and the OpenAPI document. Decimals are strings; times are integers.
 */
import { ORDER_STATUSES as EVERY_ORDER_STATUS } from '../types/orders.ts';

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
    maxOriginatorFee: { ...DECIMAL, description: 'largest originatorFee an order may carry, as a fraction of notional (originatorFee / 10^8)' },
    fundingIntervalMs: { type: 'integer' },
    fundingRateCap: DECIMAL,
    interestRate: DECIMAL,
    oracleFeedId: { type: 'string' },
  },
  required: ['symbol', 'tickSize', 'lotSize', 'minSize', 'maxLeverage', 'initialMarginFraction', 'maintenanceMarginFraction', 'makerFee', 'takerFee', 'maxOriginatorFee', 'oracleFeedId'],
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

const PUBLIC_TRADE_SCHEMA = {
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

const CANDLE_SCHEMA = {
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

const PRICE_SCHEMA = {
  title: 'Price',
  type: 'object',
  properties: {
    symbol: { type: 'string' },
    markPrice: NULLABLE_DECIMAL,
    indexPrice: NULLABLE_DECIMAL,
    lastPrice: NULLABLE_DECIMAL,
    indexHeld: { type: 'boolean', description: 'testnet: true while an operator-set index price holds the market (POST /operator/index-price), so the built-in feed leaves it alone until POST /operator/index-price/release' },
  },
  required: ['symbol', 'markPrice', 'indexPrice', 'lastPrice', 'indexHeld'],
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

const ACCOUNT_FILL_SCHEMA = {
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

// ── Account API (login, stats, positions, balance, margin, transfers, delegates, nonces) ───

const ADDRESS = { type: 'string', pattern: '^0x[0-9a-f]{40}$', description: 'lowercase 0x address' } as const;
const USD = { type: 'string', description: 'decimal string, USD (collateral, 6 decimals at most)' } as const;
const FRACTION = { type: 'string', description: 'decimal fraction (0.05 = 5 %), 8 decimals at most' } as const;
const MILLIS = { type: 'integer', description: 'milliseconds since the Unix epoch' } as const;
const SUBACCOUNT = { type: 'integer', minimum: 0, maximum: 2147483647 } as const;

/** The body of a signed write that succeeded: JSON `null`. */
export const NULL_SCHEMA = { title: 'Null', type: 'null', description: 'null: the write is durable' } as const;

export const CHALLENGE_SCHEMA = {
  title: 'LoginChallenge',
  type: 'object',
  properties: {
    message: { type: 'string', description: 'EIP-4361 (Sign-In with Ethereum) message to sign with personal_sign, exactly as given' },
    nonce: { type: 'string', description: '48 hex digits (a random salt and an HMAC of the challenge under the server key), single use' },
    expiresAt: { ...MILLIS, description: 'the challenge must be redeemed before this time (ms)' },
  },
  required: ['message', 'nonce', 'expiresAt'],
} as const;

export const LOGIN_SCHEMA = {
  title: 'AccessToken',
  type: 'object',
  properties: {
    token: { type: 'string', description: 'JWT access token: send as `Authorization: Bearer <token>`' },
    expiresAt: { ...MILLIS, description: 'the token expires at this time (ms); log in again after it' },
    address: ADDRESS,
  },
  required: ['token', 'expiresAt', 'address'],
} as const;

export const ACCOUNT_STATS_SCHEMA = {
  title: 'AccountStatistics',
  type: 'object',
  properties: {
    account: ADDRESS,
    subaccountIndex: SUBACCOUNT,
    accountValue: { ...USD, description: 'USD: crossEquity + Σ isolated (margin + unrealized PnL)' },
    crossEquity: { ...USD, description: 'USD: collateral + unrealized PnL of cross positions' },
    crossLeverage: { ...FRACTION, description: 'ratio: Σ cross notional at mark / crossEquity (0 when equity ≤ 0)' },
    crossMarginRatio: { ...FRACTION, description: 'ratio: Σ cross maintenance margin / crossEquity (liquidation at 1)' },
    crossMarginUsage: { ...FRACTION, description: 'ratio: initialMarginRequirement / crossEquity' },
    freeCollateral: { ...USD, description: 'USD that may leave the subaccount (transfer, withdraw): never unrealized profit' },
    freeCollateralCross: { ...USD, description: 'USD available for new orders: crossEquity − initialMarginRequirement, ≥ 0' },
    initialMarginRequirement: { ...USD, description: 'USD: Σ cross initial margin + open-order holds' },
    maintMargin: { ...USD, description: 'USD: Σ maintenance margin of all positions' },
    upnl: { ...USD, description: 'USD: unrealized PnL of all positions at the mark price' },
  },
  required: ['account', 'subaccountIndex', 'accountValue', 'crossEquity', 'crossLeverage', 'crossMarginRatio', 'crossMarginUsage', 'freeCollateral', 'freeCollateralCross', 'initialMarginRequirement', 'maintMargin', 'upnl'],
} as const;

export const POSITION_SCHEMA = {
  title: 'Position',
  type: 'object',
  properties: {
    account: ADDRESS,
    subaccountIndex: SUBACCOUNT,
    symbol: { type: 'string' },
    quantity: { type: 'string', description: 'signed decimal: positive long, negative short' },
    basis: { ...USD, description: 'USD: signed entry cost (long ≥ 0, short ≤ 0); entry price = basis / quantity' },
    fees: { ...USD, description: 'USD: trading fees paid since the position opened (negative = rebates)' },
    funding: { ...USD, description: 'USD: funding since the position opened (+ received, − paid)' },
    margin: { ...USD, description: 'USD reserved for an isolated position (0 for cross)' },
    isolated: { type: 'boolean' },
    markPrice: { type: ['string', 'null'], description: 'decimal price, null before the first mark' },
    unrealizedPnl: { ...USD, description: 'USD: quantity × mark − basis' },
    updatedAt: { ...MILLIS, description: 'last change (ms)' },
  },
  required: ['account', 'subaccountIndex', 'symbol', 'quantity', 'basis', 'fees', 'funding', 'margin', 'isolated', 'markPrice', 'unrealizedPnl', 'updatedAt'],
} as const;

export const POSITIONS_SCHEMA = {
  title: 'Positions',
  type: 'object',
  properties: { positions: { type: 'array', items: POSITION_SCHEMA, description: 'open positions, in markets-file order' } },
  required: ['positions'],
} as const;

export const BALANCE_SCHEMA = {
  title: 'Balance',
  type: 'object',
  properties: {
    account: ADDRESS,
    subaccountIndex: SUBACCOUNT,
    collateral: { ...USD, description: 'USD: cross collateral (deposits, transfers, realized PnL, fees, funding); may be negative while unrealized profit covers it' },
    isolatedMargin: { ...USD, description: 'USD held by isolated positions' },
    orderHolds: { ...USD, description: 'USD reserved by open orders (initial margin and fees)' },
    initialMarginRequirement: { ...USD, description: 'USD: cross positions’ initial margin + orderHolds' },
    freeCollateral: { ...USD, description: 'USD transferable now (POST /account/transfer may move at most this)' },
    freeCollateralCross: { ...USD, description: 'USD available for new orders' },
    accountValue: { ...USD, description: 'USD: everything at the mark price' },
    upnl: { ...USD, description: 'USD: unrealized PnL at the mark price' },
  },
  required: ['account', 'subaccountIndex', 'collateral', 'isolatedMargin', 'orderHolds', 'initialMarginRequirement', 'freeCollateral', 'freeCollateralCross', 'accountValue', 'upnl'],
} as const;

const MARGIN_SETTING_SCHEMA = {
  title: 'MarginSetting',
  type: 'object',
  properties: {
    symbol: { type: 'string' },
    isolated: { type: 'boolean', description: 'true: isolated margin in this market; false: cross' },
    margin: { ...FRACTION, description: 'desired initial margin fraction (0.33 = 33 %); the market default until set' },
    leverage: { type: 'string', description: 'decimal: 1 / margin, 8 decimals, truncated' },
    maxLeverage: { type: 'integer', description: "the market's maximum; margin ≥ 1 / maxLeverage" },
  },
  required: ['symbol', 'isolated', 'margin', 'leverage', 'maxLeverage'],
} as const;

export const MARGIN_SETTINGS_SCHEMA = {
  title: 'MarginSettings',
  type: 'object',
  properties: { account: ADDRESS, subaccountIndex: SUBACCOUNT, markets: { type: 'array', items: MARGIN_SETTING_SCHEMA } },
  required: ['account', 'subaccountIndex', 'markets'],
} as const;

const TRANSFER_SCHEMA = {
  title: 'Transfer',
  type: 'object',
  properties: {
    id: { type: 'integer', description: 'sequence number of the transfer (unique, increasing)' },
    time: MILLIS,
    direction: { type: 'string', enum: ['in', 'out'], description: 'in: credited to the subaccount asked about; out: debited from it' },
    accountFrom: ADDRESS,
    subaccountIndexFrom: SUBACCOUNT,
    accountTo: ADDRESS,
    subaccountIndexTo: SUBACCOUNT,
    amount: USD,
  },
  required: ['id', 'time', 'direction', 'accountFrom', 'subaccountIndexFrom', 'accountTo', 'subaccountIndexTo', 'amount'],
} as const;

export const TRANSFERS_SCHEMA = {
  title: 'Transfers',
  type: 'object',
  properties: { transfers: { type: 'array', items: TRANSFER_SCHEMA, description: 'newest first' } },
  required: ['transfers'],
} as const;

const DELEGATE_SCHEMA = {
  title: 'Delegate',
  type: 'object',
  properties: {
    subaccountIndex: SUBACCOUNT,
    delegate: ADDRESS,
    scopes: { type: 'array', items: { type: 'string', enum: ['trade', 'read'] }, description: 'trade: orders, cancels, margin updates; read: orders, stats, positions, fills' },
  },
  required: ['subaccountIndex', 'delegate', 'scopes'],
} as const;

export const DELEGATES_SCHEMA = {
  title: 'Delegates',
  type: 'object',
  properties: { account: ADDRESS, subaccountIndex: SUBACCOUNT, delegates: { type: 'array', items: DELEGATE_SCHEMA } },
  required: ['account', 'subaccountIndex', 'delegates'],
} as const;

export const SIGNERS_SCHEMA = {
  title: 'Signers',
  type: 'object',
  properties: {
    account: ADDRESS,
    subaccountIndex: SUBACCOUNT,
    signers: { type: 'array', items: ADDRESS, description: "addresses whose signature is accepted for the subaccount's orders and margin updates: the account first, then its trade delegates" },
  },
  required: ['account', 'subaccountIndex', 'signers'],
} as const;

export const NONCE_SCHEMA = {
  title: 'NextNonce',
  type: 'object',
  properties: {
    account: ADDRESS,
    subaccountIndex: SUBACCOUNT,
    signer: ADDRESS,
    nonce: { type: 'integer', minimum: 0, description: 'one above the highest nonce accepted for (account, subaccountIndex, signer); 0 when none' },
  },
  required: ['account', 'subaccountIndex', 'signer', 'nonce'],
} as const;

// ── Orders ─────────────────────────────────────────────────────────────────────────────────

const NULLABLE_STRING = { type: ['string', 'null'] } as const;

/**
 * The order statuses a client sees: every status (types/orders) but `triggered`. The spec lists
 * none beyond `new` and names no `triggered` status, so a released conditional order on its way
 * into its book (the registry's `triggered`, for microseconds) is shown as `new` (order-view.ts):
 * a fired order reads `new`, then the book's statuses, under its own orderId, its `triggerPrice`
 * telling where it fired.
 */
export const API_ORDER_STATUSES = EVERY_ORDER_STATUS.filter((s) => s !== 'triggered');

/** The spec's Order resource. */
export const ORDER_SCHEMA = {
  title: 'Order',
  type: 'object',
  properties: {
    account: ADDRESS,
    clientId: NULLABLE_STRING,
    createdAt: MILLIS,
    expiresAt: { type: 'integer', minimum: 0, description: 'milliseconds; 0 = good till cancelled' },
    flags: {
      type: 'object',
      properties: { ioc: { type: 'boolean' }, postOnly: { type: 'boolean' }, reduceOnly: { type: 'boolean' }, selfTradeExpire: { type: 'integer' } },
      required: ['ioc', 'postOnly', 'reduceOnly', 'selfTradeExpire'],
    },
    groupId: { type: 'string' },
    lastUpdateSequenceNumber: { type: 'integer', description: 'market sequence number of the last event that touched the order' },
    nonce: { type: 'integer', minimum: 0 },
    ocoGroupId: { type: 'string' },
    orderId: { type: 'string', description: '0x + 16 hex digits' },
    orderType: { type: 'string', enum: ['unsupported', 'limit', 'twap', 'takeProfit', 'stopLoss', 'trailingStop', 'iceberg'] },
    originator: ADDRESS,
    originatorFee: { type: 'integer', minimum: 0, description: 'fraction of notional in 10^-8' },
    parentOrderId: NULLABLE_STRING,
    period: { type: ['integer', 'null'], minimum: 0, description: 'milliseconds between the orders of a TWAP' },
    price: DECIMAL,
    quantity: { ...DECIMAL, description: 'signed: positive buys, negative sells' },
    reason: { type: 'string' },
    remaining: DECIMAL,
    settled: { ...DECIMAL, description: 'quantity filled so far' },
    status: { type: 'string', enum: [...API_ORDER_STATUSES] },
    subaccountIndex: SUBACCOUNT,
    symbol: { type: 'string' },
    trailingPercent: { ...NULLABLE_STRING, description: 'trailingStop: the fraction it trails the best mark by, such as "0.05"' },
    triggerPrice: {
      ...NULLABLE_STRING,
      description: 'takeProfit / stopLoss: the trigger as submitted; trailingStop: while untriggered the trigger it would fire at now (it follows the mark), once fired the trigger the mark crossed; null for other types',
    },
    updatedAt: MILLIS,
  },
  required: ['account', 'clientId', 'createdAt', 'expiresAt', 'flags', 'nonce', 'orderId', 'orderType', 'price', 'quantity', 'remaining', 'settled', 'status', 'subaccountIndex', 'symbol', 'updatedAt'],
} as const;

export const ORDERS_SCHEMA = { title: 'OrderArray', type: 'array', items: ORDER_SCHEMA } as const;

export const ORDER_BATCH_SCHEMA = {
  title: 'OrderBatch',
  type: 'object',
  properties: { orders: ORDERS_SCHEMA },
  required: ['orders'],
} as const;

export const ORDER_LIST_SCHEMA = {
  title: 'OrderList',
  type: 'object',
  properties: { asks: ORDERS_SCHEMA, bids: ORDERS_SCHEMA, total: { type: 'integer' } },
  required: ['asks', 'bids', 'total'],
} as const;

export const BATCH_CANCEL_SCHEMA = {
  title: 'BatchCancelResult',
  type: 'object',
  properties: {
    cancelled: ORDERS_SCHEMA,
    failed: {
      type: 'array',
      items: { type: 'object', properties: { clientId: { type: 'string' }, orderId: { type: 'string' }, reason: { type: 'string' } }, required: ['clientId', 'orderId', 'reason'] },
    },
  },
  required: ['cancelled', 'failed'],
} as const;

/** A bound of GET /config `limits`: `min` to `max`, and the default when there is one. */
const RANGE = { type: 'object', properties: { min: { type: 'integer' }, max: { type: 'integer' }, default: { type: 'integer' } }, required: ['min', 'max'] } as const;

/** GET /config (documentation only: the route writes it once with JSON.stringify). */
export const CONFIG_SCHEMA = {
  title: 'Config',
  type: 'object',
  properties: {
    profile: { type: 'string', enum: ['testnet', 'mainnet'] },
    chainId: { type: 'integer' },
    verifyingContract: ADDRESS,
    baseUrl: { type: 'string' },
    faucet: { type: 'boolean' },
    collateral: { type: 'object', properties: { asset: { type: 'string' }, decimals: { type: 'integer' } } },
    eip712: {
      type: 'object',
      description: 'domain and types to pass to signTypedData (viem, ethers) as they are',
      properties: {
        domain: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' }, chainId: { type: 'integer' }, verifyingContract: ADDRESS }, required: ['name', 'version', 'chainId', 'verifyingContract'] },
        types: {
          type: 'object',
          description: 'primary type (Order, Transfer, MarginUpdate, Delegation) → its fields in order',
          additionalProperties: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, type: { type: 'string' } }, required: ['name', 'type'] } },
        },
        primaryTypes: {
          type: 'object',
          description: 'which primary type signs which request',
          properties: { order: { type: 'string' }, transfer: { type: 'string' }, marginUpdate: { type: 'string' }, delegation: { type: 'string' } },
        },
      },
      required: ['domain', 'types', 'primaryTypes'],
    },
    signing: { type: 'object', additionalProperties: true, description: 'prose for a reader, free-form: how a request body becomes the message to sign, per primary type: Order rules with a worked example (a body and the exact message signed for it); what an Invalid signature answer carries' },
    markets: { type: 'array', items: MARKET_SCHEMA },
    limits: {
      type: 'object',
      description: 'request budget, the ranges of depth, limits and the nonce window, the account limits and (testnet) the faucet\'s terms',
      properties: {
        requestsPerSecondPerAccount: { type: 'integer' },
        bookDepth: RANGE, tradesLimit: RANGE, candlesLimit: RANGE, fillsLimit: RANGE, ordersLimit: RANGE,
        nonceWindow: { type: 'integer', description: 'a nonce is accepted above the smallest of this many last accepted' },
        faucet: {
          type: 'object',
          description: 'testnet only',
          properties: { credit: DECIMAL, creditsPerDay: { type: 'integer' }, allowancePerDay: DECIMAL, per: { type: 'string' }, resets: { type: 'string' } },
        },
        minTransfer: { ...DECIMAL, description: 'USD' },
        subaccountsPerAccount: { type: 'integer' },
      },
    },
  },
  required: ['profile', 'chainId', 'verifyingContract', 'eip712', 'signing', 'markets', 'limits'],
} as const;

// ── Operator ───────────────────────────────────────────────────────────────────────────────

export const SNAPSHOT_TAKEN_SCHEMA = { title: 'SnapshotTaken', type: 'object', properties: { seq: { type: 'integer' } }, required: ['seq'] } as const;

export const STATE_HASH_SCHEMA = {
  title: 'StateHash',
  type: 'object',
  properties: {
    exchange: { type: 'string', description: 'hash of the exchange state (ledger, nonces, delegations, orders, conditional books, faucet day)' },
    books: { type: 'array', items: { type: 'object', properties: { market: { type: 'integer' }, hash: { type: 'string' } }, required: ['market', 'hash'] } },
    lastSeq: { type: 'integer', description: 'the journal sequence number the hashes are of' },
    problem: { type: ['string', 'null'], description: 'the first broken invariant, or null' },
    money: { type: 'object', additionalProperties: DECIMAL, description: "the conservation check's terms (deposited, fauceted, withdrawn, collateral, isolatedMargin, openBasis, insuranceFund, feesCollected, imbalance), USD decimal strings" },
  },
  required: ['exchange', 'books', 'lastSeq', 'problem', 'money'],
} as const;
