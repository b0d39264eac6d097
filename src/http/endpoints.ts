/**
 * @module http/endpoints
 *
 * Every route of the REST API, in the order the API document lists them: the declarations
 * (http/endpoint) the route modules export beside their handlers. The gateway serves each with
 * its handler (test/http/endpoints.test.ts checks the two lists are one); GET /openapi.json and
 * GET /docs are derived from this list, as are the client's route table checks and the fuzzer's plans.
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
import { PAGE } from './routes/web.ts';

export const ENDPOINTS: readonly Endpoint[] = [
  CONFIG, MARKETS, TIME, BOOK, ORDERBOOK, CANDLES, TRADES, PRICES, SUMMARY,
  CHALLENGE, LOGIN,
  STATS, BALANCE, POSITIONS, FILLS, MARGIN_SETTINGS, MARGIN_UPDATE, NONCE,
  TRANSFER, TRANSFER_HISTORY,
  DELEGATES, DELEGATION, SIGNERS,
  SUBMIT_ORDER, SUBMIT_BATCH, GET_ORDER, CANCEL_ORDER, CANCEL_BATCH, CANCEL_ALL, LIST_ORDERS,
  FAUCET,
  DEPOSIT, WITHDRAW, INDEX_PRICE, INDEX_PRICE_RELEASE, SNAPSHOT, STATE_HASH,
  HEALTH, READY_ENDPOINT, METRICS, CLUSTER,
  OPENAPI_JSON, ASYNCAPI_JSON, DOCS, PAGE,
];
