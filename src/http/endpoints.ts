/**
 * @module http/endpoints
 *
 * Every route of the REST API, by name, in the order the API document lists them: the
 * declarations (http/endpoint) the route modules export beside their handlers. The one list of
 * routes: the gateway's table is built from it (http/gateway `routes`: a route for each name, its
 * type asks for every one), and GET /openapi.json and GET /docs are derived from it, as are the
 * fuzzer's plans and the client's route table checks (the client keeps a table of its own,
 * src/client/routes.ts: it is a standalone package that imports no server code).
 * May import: http/endpoint (types), http/routes/. Of the route modules, only their declarations.
 */
import type { Endpoint } from './endpoint.ts';
import { CONFIG, MARKETS, TIME } from './routes/markets.ts';
import { BOOK, ORDERBOOK } from './routes/book.ts';
import { CANDLES } from './routes/candles.ts';
import { TRADES } from './routes/trades.ts';
import { PRICES, SUMMARY } from './routes/price.ts';
import { CHALLENGE, LOGIN } from './routes/login.ts';
import { BALANCE, STATS } from './routes/account-stats.ts';
import { POSITIONS } from './routes/account-positions.ts';
import { FILLS } from './routes/account-fills.ts';
import { MARGIN_SETTINGS, MARGIN_UPDATE } from './routes/account-margin.ts';
import { NONCE } from './routes/account-nonce.ts';
import { TRANSFER, TRANSFER_HISTORY } from './routes/account-transfer.ts';
import { DELEGATES, DELEGATION, SIGNERS } from './routes/account-delegates.ts';
import { CANCEL_ALL, CANCEL_BATCH, CANCEL_ORDER, GET_ORDER, LIST_ORDERS, SUBMIT_BATCH, SUBMIT_ORDER } from './routes/orders.ts';
import { FAUCET } from './routes/faucet.ts';
import { DEPOSIT, INDEX_PRICE, INDEX_PRICE_RELEASE, SNAPSHOT, STATE_HASH, WITHDRAW } from './routes/operator.ts';
import { HEALTH, METRICS, READY_ENDPOINT } from './routes/operations.ts';
import { CLUSTER } from './routes/cluster.ts';
import { ASYNCAPI_JSON, DOCS, OPENAPI_JSON } from './routes/openapi.ts';
import { PAGE, PAGE_ICON, PAGE_SCRIPT, PAGE_STYLE } from './routes/web.ts';

export const ENDPOINT_BY_NAME = {
  config: CONFIG, markets: MARKETS, time: TIME, book: BOOK, orderbook: ORDERBOOK, candles: CANDLES, trades: TRADES, prices: PRICES, summary: SUMMARY,
  challenge: CHALLENGE, login: LOGIN,
  stats: STATS, balance: BALANCE, positions: POSITIONS, fills: FILLS, marginSettings: MARGIN_SETTINGS, marginUpdate: MARGIN_UPDATE, nonce: NONCE,
  transfer: TRANSFER, transferHistory: TRANSFER_HISTORY,
  delegates: DELEGATES, delegation: DELEGATION, signers: SIGNERS,
  submitOrder: SUBMIT_ORDER, submitBatch: SUBMIT_BATCH, getOrder: GET_ORDER, cancelOrder: CANCEL_ORDER, cancelBatch: CANCEL_BATCH, cancelAll: CANCEL_ALL, listOrders: LIST_ORDERS,
  faucet: FAUCET,
  deposit: DEPOSIT, withdraw: WITHDRAW, indexPrice: INDEX_PRICE, indexPriceRelease: INDEX_PRICE_RELEASE, snapshot: SNAPSHOT, stateHash: STATE_HASH,
  health: HEALTH, ready: READY_ENDPOINT, metrics: METRICS, cluster: CLUSTER,
  openApi: OPENAPI_JSON, asyncApi: ASYNCAPI_JSON, docs: DOCS, page: PAGE, pageStyle: PAGE_STYLE, pageIcon: PAGE_ICON, pageScript: PAGE_SCRIPT,
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINT_BY_NAME;

/** Every declaration, in the document's order (the page's files among them, `hidden` from the document). */
export const ENDPOINTS: readonly Endpoint[] = Object.values(ENDPOINT_BY_NAME);
