/**
 * @module gateway-ports
 *
 * What a node hands its gateway (http/gateway) and its feeds (ws/feeds), built over its
 * exchange, history and journal — the same on every node, so a replica (replication/replica)
 * serves exactly the primary's reads: the state reads (`stateReads`), the operator's state
 * report (`stateReport`), wallet login (`walletLogin`), and the streaming feeds with the relay
 * that hands them what the journal has flushed (`streamingFeeds`, `laterFeeds`), and the whole of
 * what the gateway serves over the exchange with the writes this node takes (`exchangeApi`). The ports are
 * the gateway's and the feeds' own interfaces (http/ports, ws/feeds): this file implements them.
 * May import: types/ids, config/ (market, process types), numeric/decimal, ledger/ledger (types),
 * auth/ (typed-data, login), history/ (reader types, projections types), app/ (exchange types,
 * order-registry types), ws/feed-relay, storage/token-secret, journal/journal (types),
 * http/ (ports types, uws types, account-routes types, routes/operator types), ws/feeds,
 * pino (types).
 */
import type { Logger } from 'pino';
import type { Settings } from './config/process.ts';
import { COLLATERAL_SCALE } from './config/market.ts';
import { formatDecimal } from './numeric/decimal.ts';
import type { MoneyReport } from './ledger/ledger.ts';
import { eip712Domain, publishedTypedData } from './auth/typed-data.ts';
import { WalletLogin } from './auth/login.ts';
import type { HistoryReader } from './history/reader.ts';
import type { Projections } from './history/projections.ts';
import type { Exchange } from './app/exchange.ts';
import type { OrderState } from './app/order-registry.ts';
import { FeedRelay } from './ws/feed-relay.ts';
import { tokenSecretOf } from './storage/token-secret.ts';
import { Feeds, feedSocketSettings, type FeedLimits } from './ws/feeds.ts';
import type { SocketEndpoint } from './http/uws.ts';
import type { AuthPort, MarketDataPort, OrdersPort, PriceSource } from './http/ports.ts';
import type { OperatorPort } from './http/routes/operator.ts';
import type { AccountApiOptions } from './http/account-routes.ts';
import type { Journal } from './journal/journal.ts';
import { NO_ACCOUNT, type MarketIndex } from './types/ids.ts';

/** Login: challenges for this profile, tokens signed with the data directory's secret (or `--jwt-secret`: replicas share it). */
export function walletLogin(settings: Settings, clock: () => number, logger: Logger): WalletLogin {
  const { profile } = settings;
  return new WalletLogin({
    challenge: { domain: new URL(profile.baseUrl).host, uri: profile.baseUrl, chainId: profile.chainId, now: clock },
    token: { keys: [{ kid: 'k1', secret: new TextEncoder().encode(settings.jwtSecret ?? tokenSecretOf(settings.dataDir, logger)) }], issuer: profile.baseUrl, audience: profile.baseUrl, now: clock },
  });
}

/**
 * The streaming feeds (ws/feeds) over this node's exchange, and the relay (ws/feed-relay)
 * that hands them, once the local journal has flushed it, what the exchange applied: every book
 * event decoded into `relay.listener(market)`, every numbered subaccount event (wired here
 * through `projections.feed`), a frame closed at each `relay.endOfBatch(seq)`. The same on every
 * node: the primary's sequencer and a replica's replay of the stream feed the relay alike.
 */
export function streamingFeeds(
  settings: Settings,
  exchange: Exchange,
  history: HistoryReader,
  projections: Projections,
  journal: Journal,
  login: WalletLogin,
  clock: () => number,
  logger: Logger,
  limits?: Partial<FeedLimits>,
): { feeds: Feeds; relay: FeedRelay } {
  const feeds = new Feeds({
    markets: settings.markets,
    startBooks: exchange.depth,
    prices: (market) => {
      const p = exchange.ledger.prices(market);
      const funding = exchange.ledger.fundingHistory(market);
      return { mark: p.mark, index: p.index, last: p.last > 0 ? p.last : undefined, fundingRate: funding.length === 0 ? null : funding[funding.length - 1].rate };
    },
    history,
    accounts: exchange.ledger,
    delegations: exchange.delegations,
    tokens: login.tokens,
    accountEvents: projections.accountEvents,
    durableAndWritten: async () => {
      const seq = journal.lastSeq();
      await journal.durable(seq);
      await projections.caughtUp(seq);
    },
    clock,
    logger,
    limits,
  });
  const relay = new FeedRelay(exchange.depth.map((d) => d.sequence), (seq) => journal.durable(seq), feeds, (error) =>
    logger.error({ err: error }, 'feed frame failed'),
  );
  projections.feed = relay;
  return { feeds, relay };
}

/** What the gateway reads of the state, the same on every node (a replica serves exactly these). */
export function stateReads(settings: Settings, exchange: Exchange, history: HistoryReader, projections: Projections, held: (market: MarketIndex) => boolean) {
  const typedData = publishedTypedData(settings.profile);
  const marketData: MarketDataPort = {
    profile: settings.profile,
    markets: settings.markets,
    book: (index) => exchange.depth[index],
    typedData: () => typedData,
    accountLimits: { minTransfer: settings.minTransfer, maxSubaccounts: settings.maxSubaccounts },
  };
  const prices: PriceSource = (market) => {
    const p = exchange.ledger.prices(market);
    return { mark: p.mark, index: p.index, held: held(market) };
  };
  const shown = (o: OrderState | undefined) => (o === undefined ? undefined : exchange.presented(o));
  const orders: Omit<OrdersPort, 'submit'> = {
    live: (orderId) => shown(exchange.orders.get(orderId)),
    liveByClient: (account, clientId) => shown(exchange.orders.byClient(account, clientId)),
    latestByClient: (account, clientId, scan) => {
      const open = exchange.orders.byClient(account, clientId);
      if (open !== undefined) return shown(open);
      const { registry } = exchange.ledger;
      return history.latestByClient(registry.ownersOf(registry.findAccount(account) ?? NO_ACCOUNT), clientId, scan);
    },
    liveOf: (owner, market) => exchange.orders.ofOwner(owner, market).map((o) => exchange.presented(o)),
    recent: (orderId) => exchange.orderAsLeft(orderId),
    stored: (orderId) => history.order(orderId),
    storedOf: (owner, query) => history.orders(owner, query),
    ownerOf: (account, subaccountIndex) => exchange.ledger.findOwner(account, subaccountIndex),
  };
  const accounts: Pick<AccountApiOptions, 'accounts' | 'fills' | 'transfers'> = {
    accounts: { ledger: exchange.ledger, delegations: exchange.delegations, nonces: exchange.nonces },
    fills: history,
    transfers: projections.transfers,
  };
  return { marketData, prices, orders, accounts };
}

/** The reads every node serves alike (`stateReads`). */
export type StateReads = ReturnType<typeof stateReads>;

/** The writes a node takes: the primary's sequencer and signature pool, a replica's refusals. */
export interface NodeWrites {
  /** Orders and the operator's commands. */
  submit: OperatorPort['submit'];
  /** Transfers, margin settings, delegations. */
  account: AccountApiOptions['writes'];
  /** Digest and signer recovery of a signed write. */
  recover: AuthPort['recover'];
  snapshot: OperatorPort['snapshot'];
  stateHash: OperatorPort['stateHash'];
  /** The testnet's built-in index feed, on a node that runs it. */
  indexFeed?: OperatorPort['indexFeed'];
}

/**
 * What the gateway serves over the exchange (its options `marketData`, `history`, `prices`,
 * `accounts`, `orders`, `operator`): the reads, login, and the writes this node takes. One shape
 * for the primary (src/pipeline), a replica (replication/replica) and the tests' in-process
 * exchange, each adding what is its own (listeners, probes, the cluster).
 */
export function exchangeApi(settings: Settings, reads: StateReads, history: HistoryReader, login: WalletLogin, writes: NodeWrites) {
  return {
    marketData: reads.marketData,
    history,
    prices: reads.prices,
    accounts: { ...reads.accounts, writes: writes.account, auth: { login, domain: eip712Domain(settings.profile), recover: writes.recover } },
    orders: { ...reads.orders, submit: writes.submit },
    operator: { key: settings.operatorKey, port: { submit: writes.submit, snapshot: writes.snapshot, stateHash: writes.stateHash, indexFeed: writes.indexFeed } },
  };
}

/**
 * The feeds' WebSocket endpoint for a gateway that listens before they exist (they start from
 * the replayed books): the gateway admits no connection before the start is done (`starting`),
 * so every call reaches the feeds.
 */
export function laterFeeds(feeds: () => Feeds, limits?: Partial<FeedLimits>): SocketEndpoint<any> {
  return {
    ...feedSocketSettings(limits),
    admit: (address) => feeds().endpoint.admit(address),
    open: (conn) => feeds().endpoint.open(conn),
    message: (conn, text) => feeds().endpoint.message(conn, text),
    close: (conn, code, reason) => feeds().endpoint.close(conn, code, reason),
  };
}

/** GET /operator/state-hash: the state's hash, the books', the journal position, the first broken invariant, the money. */
export function stateReport(exchange: Exchange, books: { market: MarketIndex; hash: string }[], lastSeq: number): Awaited<ReturnType<OperatorPort['stateHash']>> {
  let problem: string | null = null;
  try {
    exchange.validateInternalState();
  } catch (error) {
    problem = (error as Error).message;
  }
  return { exchange: exchange.stateHash(), books: books.sort((a, b) => a.market - b.market), lastSeq, problem, money: moneyView(exchange.ledger.moneyReport()) };
}

/** The money report as the operator reads it (GET /operator/state-hash): collateral units as decimal strings. */
function moneyView(r: MoneyReport): Record<keyof MoneyReport, string> {
  const out = {} as Record<keyof MoneyReport, string>;
  for (const key of Object.keys(r) as (keyof MoneyReport)[]) out[key] = formatDecimal(r[key], COLLATERAL_SCALE);
  return out;
}
