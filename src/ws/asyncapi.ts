/**
 * @module ws/asyncapi
 *
 * The AsyncAPI 3.0 document of the streaming feeds (GET /asyncapi.json, linked from /docs):
 * the one WebSocket endpoint, every channel and every message a client sends or receives, as
 * docs/feeds.md describes them. Built once from the same names the feeds use (channel kinds,
 * candle intervals, limits, close code), served as a constant.
 * May import: ws/, history/candles, http/schemas.
 */
import { CANDLE_INTERVALS } from '../history/candles.ts';
import { DEFAULT_FEED_LIMITS, FEED_PATH, SLOW_CONSUMER_CLOSE } from './feeds.ts';
import { CHECKSUM_LEVELS } from './messages.ts';
import { ACCOUNT_STATS_SCHEMA, MARKET_SUMMARY_SCHEMA, ORDER_SCHEMA, API_ORDER_STATUSES } from '../http/schemas.ts';

const decimal = { type: 'string', description: 'decimal, as REST formats it' };
const levels = { type: 'array', items: { type: 'array', prefixItems: [decimal, decimal], description: '[price, quantity]; quantity "0" = the level is gone' } };
const object = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({ type: 'object', properties, required });

/** The order of an `order` event: GET /account/order's, with the registry's `triggered` besides (the instant a conditional order fires). */
const FEED_ORDER = { ...ORDER_SCHEMA, properties: { ...ORDER_SCHEMA.properties, status: { type: 'string', enum: [...API_ORDER_STATUSES, 'triggered'] } } };
const FEED_FILL = object({
  symbol: { type: 'string' }, orderId: { type: ['string', 'null'], description: 'null for an auto-deleveraging trade, which no book executed' }, side: { enum: ['buy', 'sell'] },
  price: decimal, quantity: decimal, notional: decimal, fee: decimal, realizedPnl: decimal, realizedFunding: decimal,
  maker: { type: 'boolean' }, liquidation: { type: 'boolean' }, time: { type: 'integer', description: 'ms' }, sequence_number: { type: 'integer', description: "the market's" },
});
const FEED_POSITION = object({ symbol: { type: 'string' }, quantity: decimal, basis: decimal, fees: decimal, funding: decimal, margin: decimal, isolated: { type: 'boolean' }, updatedAt: { type: 'integer', description: 'ms' } });
const FEED_BALANCE = object({ collateral: decimal, delta: decimal, reason: { type: 'string', description: 'deposit, withdrawal, transfer, fill, funding, faucet…' }, time: { type: 'integer', description: 'ms' } });

const message = (name: string, summary: string, payload: Record<string, unknown>) => ({ name, title: name, summary, contentType: 'application/json', payload });

const symbol = { description: 'a market symbol (BTC-USD-PERP; a bare BTC is accepted)' };

const MESSAGES = {
  subscribe: message('subscribe', 'Subscribe to several channels at once; all or none', object({ op: { const: 'subscribe' }, id: { type: ['string', 'number'] }, channels: { type: 'array', items: { oneOf: [{ type: 'string' }, object({ channel: { type: 'string' }, since: { type: 'integer', minimum: 0 } }, ['channel'])] } } }, ['op', 'channels'])),
  unsubscribe: message('unsubscribe', 'Leave channels', object({ op: { const: 'unsubscribe' }, id: { type: ['string', 'number'] }, channels: { type: 'array', items: { type: 'string' } } }, ['op', 'channels'])),
  login: message('login', 'Authenticate with the JWT of POST /auth/login (private channels)', object({ op: { const: 'login' }, id: { type: ['string', 'number'] }, token: { type: 'string' } }, ['op', 'token'])),
  ping: message('ping', 'Ask for a pong', object({ op: { const: 'ping' }, id: { type: ['string', 'number'] } }, ['op'])),
  subscribed: message('subscribed', 'The channels of a subscribe (or unsubscribed for an unsubscribe), canonical names', object({ type: { enum: ['subscribed', 'unsubscribed'] }, id: {}, channels: { type: 'array', items: { type: 'string' } } }, ['type', 'channels'])),
  loggedIn: message('login', 'Logged in as account', object({ type: { const: 'login' }, id: {}, account: { type: 'string' } }, ['type', 'account'])),
  pong: message('pong', 'Reply to ping', object({ type: { const: 'pong' }, id: {}, time: { type: 'integer', description: 'ms' } }, ['type', 'time'])),
  heartbeat: message('heartbeat', `Sent every ${DEFAULT_FEED_LIMITS.heartbeatMs / 1000} s on every connection`, object({ type: { const: 'heartbeat' }, time: { type: 'integer' } })),
  error: message('error', 'A refused request: nothing of it was done. Texts as REST where one applies (Symbol not found, Invalid JWT token, Not delegated for account and subaccount…)', object({ type: { const: 'error' }, id: {}, channel: { type: 'string' }, message: { type: 'string' } }, ['type', 'message'])),
  bookSnapshot: message('bookSnapshot', 'Every level at sequence_number, on subscribe', object({ channel: { type: 'string' }, type: { const: 'snapshot' }, sequence_number: { type: 'integer' }, bids: levels, asks: levels, checksum: { type: 'integer', description: `CRC-32 of the best ${CHECKSUM_LEVELS} levels per side (docs/feeds.md)` }, time: { type: 'integer', description: 's' } })),
  bookDelta: message(
    'bookDelta',
    `Levels changed after previous_sequence_number up to sequence_number (GET /book's), at most one every ${DEFAULT_FEED_LIMITS.publishEveryMs} ms per market: the changes of a window merged (each level its newest total). ` +
      'sequence_number advances by one per event of the market, so it jumps across a delta; previous_sequence_number equal to the last sequence_number seen is continuity, any other is a gap',
    object({ channel: { type: 'string' }, type: { const: 'delta' }, previous_sequence_number: { type: 'integer' }, sequence_number: { type: 'integer' }, bids: levels, asks: levels, checksum: { type: 'integer' }, time: { type: 'integer' } }),
  ),
  trades: message('trades', `Public trades, as GET /trades items plus their sequence_number, in order; at most one message every ${DEFAULT_FEED_LIMITS.publishEveryMs} ms per market (every trade of the window)`, object({ channel: { type: 'string' }, type: { const: 'trades' }, trades: { type: 'array', items: object({ price: decimal, quantity: decimal, symbol: { type: 'string' }, side: { enum: ['buy', 'sell'] }, time: { type: 'integer' }, sequence_number: { type: 'integer' } }) } })),
  candle: message('candle', 'The open candle, as GET /candles items, on subscribe and as trades change it', object({ channel: { type: 'string' }, type: { const: 'candle' }, candle: object({ time: { type: 'integer' }, open: decimal, high: decimal, low: decimal, close: decimal, volume: decimal, funding_rate: decimal }) })),
  prices: message('prices', 'Mark, index and last price and the last settled funding rate; on subscribe and when one changes', object({ channel: { type: 'string' }, type: { const: 'prices' }, markPrice: { type: ['string', 'null'] }, indexPrice: { type: ['string', 'null'] }, lastPrice: { type: ['string', 'null'] }, fundingRate: { type: ['string', 'null'] }, time: { type: 'integer' } })),
  summary: message('summary', 'GET /summary of the market; on subscribe and after trades (at most once a second)', object({ channel: { type: 'string' }, type: { const: 'summary' }, ...MARKET_SUMMARY_SCHEMA.properties }, ['channel', 'type', ...MARKET_SUMMARY_SCHEMA.required])),
  accountEvent: message('accountEvent', 'One numbered event of the subaccount: order (every status change, untriggered and triggered included: the order as GET /account/order shows it), fill, position or balance', object({ channel: { type: 'string' }, type: { enum: ['order', 'fill', 'position', 'balance'] }, sequence: { type: 'integer', description: 'per subaccount, 1, 2, 3… with no gap' }, order: FEED_ORDER, fill: FEED_FILL, position: FEED_POSITION, balance: FEED_BALANCE }, ['channel', 'type', 'sequence'])),
  accountStats: message('accountStats', 'GET /account/stats after the events up to sequence (not numbered itself)', object({ channel: { type: 'string' }, type: { const: 'stats' }, sequence: { type: 'integer' }, stats: ACCOUNT_STATS_SCHEMA })),
  accountLive: message('accountLive', 'Caught up: every event up to sequence was sent; what follows is live', object({ channel: { type: 'string' }, type: { const: 'live' }, sequence: { type: 'integer' } })),
  accountResync: message('accountResync', `since cannot be resumed from (ahead of the account, or more than ${DEFAULT_FEED_LIMITS.maxResume} events behind): take a fresh snapshot over REST; live from sequence on`, object({ channel: { type: 'string' }, type: { const: 'resync' }, sequence: { type: 'integer' }, message: { type: 'string' } })),
};

const ref = (name: keyof typeof MESSAGES) => ({ $ref: `#/components/messages/${name}` });
const channel = (address: string, description: string, parameters: Record<string, unknown>, names: (keyof typeof MESSAGES)[]) => ({
  address,
  description,
  parameters,
  messages: Object.fromEntries(names.map((n) => [n, ref(n)])),
});

export function asyncApiDocument(servers: ReadonlyArray<{ url: string; description: string }>): Record<string, unknown> {
  const control: (keyof typeof MESSAGES)[] = ['subscribe', 'unsubscribe', 'login', 'ping', 'subscribed', 'loggedIn', 'pong', 'heartbeat', 'error'];
  const channels = {
    control: channel(FEED_PATH, 'Requests and their replies on the connection itself', {}, control),
    book: channel('book.{symbol}', `Order book: a snapshot on subscribe, then deltas chained by sequence_number, at most one every ${DEFAULT_FEED_LIMITS.publishEveryMs} ms`, { symbol }, ['bookSnapshot', 'bookDelta']),
    trades: channel('trades.{symbol}', 'Public trades', { symbol }, ['trades']),
    candles: channel('candles.{symbol}.{interval}', 'The open candle of one interval', { symbol, interval: { enum: CANDLE_INTERVALS.map((i) => i.name) } }, ['candle']),
    prices: channel('prices.{symbol}', 'Mark, index, last price and funding rate', { symbol }, ['prices']),
    summary: channel('summary.{symbol}', '24 h market summary', { symbol }, ['summary']),
    account: channel('account.{address}.{subaccountIndex}', 'Private: after login, the account or a delegate holding read. Subscribe with {"channel", "since"} to resume', { address: {}, subaccountIndex: {} }, ['accountEvent', 'accountStats', 'accountLive', 'accountResync']),
  };
  const receive = (name: keyof typeof channels) => ({ action: 'receive', channel: { $ref: `#/channels/${name}` } });
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'perp-exchange streaming feeds',
      version: '1',
      description:
        `One WebSocket at ${FEED_PATH} on the REST API's port (docs/feeds.md). Limits: ${DEFAULT_FEED_LIMITS.connectionsPerAddress} connections per source address (the upgrade is refused 429), ` +
        `${DEFAULT_FEED_LIMITS.subscriptionsPerConnection} subscriptions per connection; ${DEFAULT_FEED_LIMITS.messagesPerSecond} messages a second per source address, a subscribe costing one per channel and a private catch-up one per 50 events (past it an error, the message not handled); a connection more than ${DEFAULT_FEED_LIMITS.slowConsumerBytes} bytes behind is closed with ${SLOW_CONSUMER_CLOSE} and a reason. ` +
        `A market's book deltas and trades go out at most every ${DEFAULT_FEED_LIMITS.publishEveryMs} ms (merged in between); private account events at once.`,
    },
    servers: Object.fromEntries(servers.map((s, i) => [`server${i}`, { host: new URL(s.url).host, protocol: new URL(s.url).protocol === 'https:' ? 'wss' : 'ws', pathname: FEED_PATH, description: s.description }])),
    channels,
    operations: {
      request: { action: 'send', channel: { $ref: '#/channels/control' }, messages: ['subscribe', 'unsubscribe', 'login', 'ping'].map((n) => ({ $ref: `#/channels/control/messages/${n}` })) },
      ...Object.fromEntries((Object.keys(channels) as (keyof typeof channels)[]).filter((c) => c !== 'control').map((c) => [`receive_${c}`, receive(c)])),
    },
    components: { messages: MESSAGES },
  };
}
