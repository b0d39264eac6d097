/**
 * @module client/client
 *
 * `ExchangeClient`: one method per REST route (the table of ./routes, checked against GET
 * /openapi.json by test/client/routes.test.ts), each answering the type derived from the
 * route's schema or throwing an `ExchangeError` with the exchange's status and text.
 *
 * - Login: `login()` signs the Sign-In with Ethereum challenge (personal_sign) and keeps the
 *   token; a token within a minute of its expiry is renewed before the request that would use it
 *   (and a request refused `JWT token expired` is logged in again and sent once more), so a
 *   long-running bot never sees its 15-minute token lapse. A saved token (`session`) can be handed
 *   to a new client (the CLI keeps one between commands).
 * - Signing: orders, transfers, margin updates and delegations are signed with GET /config's
 *   EIP-712 domain and types (fetched once) by the published body→message rules (./signing,
 *   checked against GET /config's worked example at the first signature); any viem account or
 *   wallet client signs (`wallet`), or any other `Signer` given as `signer` (the load generator's
 *   libsecp256k1 signer, bench/load/native-signer.ts, signs thousands of orders a second).
 * - Nonces: ./nonces, per subaccount, safe under concurrency (taken before any await).
 * - Account reads default `account` and `subaccountIndex` to the wallet's own and the client's
 *   subaccount; pass them to read an account that delegated to this wallet.
 * - Feeds: `feed()` opens ./feeds with this client's token for private channels.
 *
 * May import: ./routes, ./signing, ./nonces, ./errors, ./feeds, viem (types).
 */
import type { Address } from 'viem';
import { ExchangeError } from './errors.ts';
import { Feed, type WebSocketFactory } from './feeds.ts';
import { Nonces } from './nonces.ts';
import { ROUTES, type Order, type ResponseOf, type Responses, type RouteName } from './routes.ts';
import { asSentMessage, checkOrderRule, orderMessage, signerOf, type OrderBody, type PublishedExample, type Signer, type Wallet } from './signing.ts';

export type QueryValue = string | number | boolean | readonly string[] | undefined;
export type Query = Record<string, QueryValue>;

export interface ClientOptions {
  /** The exchange, such as http://localhost:8080. */
  url: string;
  /** Signs logins and writes: a viem account (`privateKeyToAccount`) or a wallet client. */
  wallet?: Wallet;
  /** Signs instead of `wallet`: anything with an address, personal_sign and EIP-712 signatures. */
  signer?: Signer;
  /** The subaccount orders and reads use unless told otherwise (default 0). */
  subaccountIndex?: number;
  /** X-Operator-Key for the operator routes. */
  operatorKey?: string;
  /** A token from an earlier login of the same wallet (used until a minute before it expires). */
  session?: Session;
  webSocket?: WebSocketFactory;
}

export interface Session {
  token: string;
  /** ms */
  expiresAt: number;
}

/** An order to sign: the market, price and signed quantity (positive buys); the rest defaulted. */
export interface OrderInput {
  symbol: string;
  price: string;
  quantity: string;
  orderType?: string;
  ioc?: boolean;
  postOnly?: boolean;
  reduceOnly?: boolean;
  clientId?: string | null;
  /** ms; 0 (default) = good till cancelled. */
  expiresAt?: number;
  /** Default: the wallet's own (a delegate trades for another account). */
  account?: string;
  subaccountIndex?: number;
  triggerPrice?: string | null;
  parentOrderId?: string | null;
  period?: number | null;
  trailingPercent?: string | null;
  originator?: string;
  originatorFee?: number;
  stopLoss?: OrderBody['stopLoss'];
  takeProfit?: OrderBody['takeProfit'];
  /** Default: the next of ./nonces. */
  nonce?: number;
}

/** A signed POST /account/order body, ready to send (the load generator signs before it sends). */
export type SignedOrder = OrderBody & { signatures: string[] };

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** Renew a token this long before it expires. */
const REFRESH_MARGIN_MS = 60_000;

type Config = ResponseOf<'config'> & {
  eip712: { domain: { name: string; version: string; chainId: number; verifyingContract: Address }; types: Record<string, { name: string; type: string }[]> };
  signing: { Order: { example: PublishedExample } };
};

export class ExchangeClient {
  readonly url: string;
  readonly nonces = new Nonces();
  readonly subaccountIndex: number;
  session: Session | undefined;
  private readonly signer: Signer | undefined;
  private configured: Promise<Config> | undefined;
  private loggingIn: Promise<Session> | undefined;
  private ruleChecked = false;

  constructor(private readonly options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.signer = options.signer ?? (options.wallet === undefined ? undefined : signerOf(options.wallet));
    this.subaccountIndex = options.subaccountIndex ?? 0;
    this.session = options.session;
  }

  /** The wallet's address, lowercase as the exchange shows it. */
  get address(): string {
    if (this.signer === undefined) throw new Error('this client has no wallet');
    return this.signer.address.toLowerCase();
  }

  // ── the transport ────────────────────────────────────────────────────────────────────────

  /** Calls route `name`: path parameters filled in, the query encoded (arrays repeated), the body as JSON. */
  async call<N extends RouteName>(name: N, request: { path?: Record<string, string>; query?: Query; body?: unknown } = {}): Promise<Responses[N]> {
    const route = ROUTES[name];
    const path = route.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(request.path?.[p] ?? ''));
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
    }
    const target = `${path}${search.size > 0 ? `?${search}` : ''}`;
    const send = async (): Promise<Response> => {
      const headers: Record<string, string> = {};
      if (request.body !== undefined) headers['content-type'] = 'application/json';
      if (route.access === 'token') headers.authorization = `Bearer ${await this.token()}`;
      if (route.access === 'operator') headers['x-operator-key'] = this.options.operatorKey ?? '';
      try {
        return await fetch(this.url + target, { method: route.method.toUpperCase(), headers, body: request.body === undefined ? undefined : JSON.stringify(request.body) });
      } catch (error) {
        throw new ExchangeError(0, `cannot reach the exchange at ${this.url}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`, undefined, `${route.method.toUpperCase()} ${path}`);
      }
    };
    let res = await send();
    let text = await res.text();
    if (res.status === 401 && route.access === 'token' && text.startsWith('JWT token expired') && this.signer !== undefined) {
      this.session = undefined;
      res = await send();
      text = await res.text();
    }
    if (!res.ok) throw new ExchangeError(res.status, text, res.headers, `${route.method.toUpperCase()} ${path}`);
    return JSON.parse(text) as Responses[N];
  }

  // ── login ────────────────────────────────────────────────────────────────────────────────

  challenge(address: string): Promise<ResponseOf<'challenge'>> {
    return this.call('challenge', { body: { address } });
  }

  redeem(message: string, signature: string): Promise<ResponseOf<'redeem'>> {
    return this.call('redeem', { body: { message, signature } });
  }

  /** Logs the wallet in (a new token, whatever the current one). */
  login(): Promise<Session> {
    const signer = this.requireSigner();
    const pending = (this.loggingIn ??= (async (): Promise<Session> => {
      try {
        const { message } = await this.challenge(signer.address);
        const { token, expiresAt } = await this.redeem(message, await signer.signMessage(message));
        const session = { token, expiresAt };
        this.session = session;
        return session;
      } finally {
        this.loggingIn = undefined;
      }
    })());
    return pending;
  }

  /** A token valid for at least another minute: the current one, or a new login's. */
  async token(): Promise<string> {
    if (this.session !== undefined && this.session.expiresAt - Date.now() > REFRESH_MARGIN_MS) return this.session.token;
    if (this.signer === undefined && this.session !== undefined) return this.session.token;
    return (await this.login()).token;
  }

  // ── market data ──────────────────────────────────────────────────────────────────────────

  /** GET /config, fetched once: the EIP-712 domain and types, the markets, the limits. */
  config(): Promise<Config> {
    this.configured ??= this.call('config').then((c) => c as Config);
    this.configured.catch(() => (this.configured = undefined));
    return this.configured;
  }

  markets = () => this.call('markets');
  time = () => this.call('time');
  book = (symbol: string, query: { depth?: number; tickSize?: string } = {}) => this.call('book', { path: { symbol }, query });
  orderbook = (query: { symbol: string; depth?: number; tickSize?: string }) => this.call('orderbook', { query });
  candles = (symbol: string, query: { interval?: string; from?: number; to?: number; limit?: number } = {}) => this.call('candles', { path: { symbol }, query });
  trades = (symbol: string, query: { limit?: number; from?: number; to?: number } = {}) => this.call('trades', { path: { symbol }, query });
  prices = (query: { symbol?: string } = {}) => this.call('prices', { query });
  summary = (query: { symbol?: string } = {}) => this.call('summary', { query });
  /** A replicated node's role, the primary's URL, its lease and lag (404 on a node that is not replicated). */
  cluster = () => this.call('cluster');
  openApi = () => this.call('openApi');
  asyncApi = () => this.call('asyncApi');

  // ── account reads (the wallet's own subaccount unless `account` / `subaccountIndex` say otherwise) ──

  private own(query: Query): Query {
    return { account: this.signer === undefined ? undefined : this.address, subaccountIndex: this.subaccountIndex, ...query };
  }

  stats = (query: Query = {}) => this.call('stats', { query: this.own(query) });
  balance = (query: Query = {}) => this.call('balance', { query: this.own(query) });
  positions = (query: Query = {}) => this.call('positions', { query: this.own(query) });
  fills = (query: Query = {}) => this.call('fills', { query: this.own(query) });
  margin = (query: Query = {}) => this.call('margin', { query: this.own(query) });
  nextNonce = (query: Query = {}) => this.call('nextNonce', { query: this.own(query) });
  transfers = (query: Query = {}) => this.call('transfers', { query: this.own(query) });
  delegates = (query: Query = {}) => this.call('delegates', { query: this.own(query) });
  signers = (query: Query = {}) => this.call('signers', { query: this.own(query) });
  orders = (query: Query = {}) => this.call('orders', { query: this.own(query) });
  /** One order: `{ orderId }`, or `{ clientId, account }`. */
  order = (lookup: { orderId?: string; clientId?: string; account?: string }) => this.call('order', { query: lookup });

  // ── orders ───────────────────────────────────────────────────────────────────────────────

  /** Signs an order (nonce taken now, before any await); the body to send, as the exchange wants it. */
  async signOrder(input: OrderInput): Promise<SignedOrder> {
    const subaccountIndex = input.subaccountIndex ?? this.subaccountIndex;
    const nonce = input.nonce ?? this.nonces.next(subaccountIndex);
    const body: OrderBody = {
      account: input.account ?? this.address,
      subaccountIndex,
      symbol: input.symbol,
      orderType: input.orderType ?? 'limit',
      price: input.price,
      quantity: input.quantity,
      nonce,
      expiresAt: input.expiresAt ?? 0,
      flags: { ioc: input.ioc ?? false, postOnly: input.postOnly ?? false, reduceOnly: input.reduceOnly ?? false },
      originator: input.originator ?? ZERO_ADDRESS,
      originatorFee: input.originatorFee ?? 0,
      clientId: input.clientId ?? null,
      triggerPrice: input.triggerPrice ?? null,
      parentOrderId: input.parentOrderId ?? null,
      period: input.period ?? null,
      trailingPercent: input.trailingPercent ?? null,
      ...(input.stopLoss === undefined ? {} : { stopLoss: input.stopLoss }),
      ...(input.takeProfit === undefined ? {} : { takeProfit: input.takeProfit }),
    };
    const config = await this.config();
    if (!this.ruleChecked) {
      checkOrderRule(config.signing.Order.example);
      this.ruleChecked = true;
    }
    const signature = await this.requireSigner().signTypedData(config.eip712.domain, { Order: config.eip712.types.Order }, 'Order', orderMessage(body));
    return { ...body, signatures: [signature] };
  }

  /** Signs (unless already signed) and places one order; the order as the exchange took it. */
  async placeOrder(order: OrderInput | SignedOrder): Promise<Order> {
    const body = 'signatures' in order ? order : await this.signOrder(order);
    const [placed] = await this.call('placeOrder', { body });
    return placed;
  }

  /** A batch (limit orders, a TWAP, an iceberg or a TP/SL pair), all or nothing. */
  async placeOrders(orders: ReadonlyArray<OrderInput | SignedOrder>): Promise<Order[]> {
    const bodies = await Promise.all(orders.map((o) => ('signatures' in o ? o : this.signOrder(o))));
    return (await this.call('placeOrders', { body: { orders: bodies } })).orders;
  }

  /** Cancels one order: `{ orderId }`, or `{ clientId, account }`. */
  cancelOrder = (lookup: { orderId?: string; clientId?: string; account?: string }) => this.call('cancelOrder', { query: lookup });
  cancelOrders = (body: { orderIds?: string[]; clientIds?: string[]; account?: string }) => this.call('cancelOrders', { body });
  /** Every open order of the subaccount, or of one market (`symbol`). */
  cancelAllOrders = (query: Query = {}) => this.call('cancelAllOrders', { query: this.own(query) });

  // ── other signed writes ──────────────────────────────────────────────────────────────────

  private async signAsSent(primaryType: 'Transfer' | 'MarginUpdate' | 'Delegation', body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const config = await this.config();
    const types = { [primaryType]: config.eip712.types[primaryType] };
    const signature = await this.requireSigner().signTypedData(config.eip712.domain, types, primaryType, asSentMessage(types[primaryType], body));
    return { ...body, signatures: [signature] };
  }

  /** Cross or isolated margin and the margin fraction in one market (signed `MarginUpdate`). */
  setMargin = async (update: { symbol: string; isolated: boolean; margin: string; subaccountIndex?: number; account?: string; expiresAt?: number }) => {
    const subaccountIndex = update.subaccountIndex ?? this.subaccountIndex;
    const body = { account: update.account ?? this.address, subaccountIndex, symbol: update.symbol, isolated: update.isolated, margin: update.margin, nonce: this.nonces.next(subaccountIndex), expiresAt: update.expiresAt ?? Date.now() + 60_000 };
    return this.call('setMargin', { body: await this.signAsSent('MarginUpdate', body) });
  };

  /** Moves collateral to another subaccount or user (signed `Transfer`). */
  transfer = async (t: { amount: string; accountTo?: string; subaccountIndexTo: number; subaccountIndexFrom?: number; feedId?: string; expiresAt?: number }) => {
    const from = t.subaccountIndexFrom ?? this.subaccountIndex;
    const body = { accountFrom: this.address, accountTo: (t.accountTo ?? this.address).toLowerCase(), subaccountIndexFrom: from, subaccountIndexTo: t.subaccountIndexTo, amount: t.amount, feedId: t.feedId ?? '', nonce: this.nonces.next(from), expiresAt: t.expiresAt ?? Date.now() + 60_000, target: this.address };
    return this.call('transfer', { body: await this.signAsSent('Transfer', body) });
  };

  /** Grants (`add`, scopes `trade`, `read` or `trade,read`) or revokes (`remove`) a delegate (signed `Delegation`). */
  setDelegate = async (d: { delegate: string; action: 'add' | 'remove'; scopes?: string; subaccountIndex?: number; expiresAt?: number }) => {
    const subaccountIndex = d.subaccountIndex ?? this.subaccountIndex;
    const body = { account: this.address, subaccountIndex, delegate: d.delegate.toLowerCase(), scopes: d.action === 'remove' ? '' : (d.scopes ?? 'trade'), action: d.action, nonce: this.nonces.next(subaccountIndex), expiresAt: d.expiresAt ?? Date.now() + 60_000 };
    return this.call('setDelegate', { body: await this.signAsSent('Delegation', body) });
  };

  /** Testnet: 10,000 USD of test collateral for the logged-in wallet. */
  faucet = (subaccountIndex = this.subaccountIndex) => this.call('faucet', { body: { account: this.address, subaccountIndex } });

  // ── operator (X-Operator-Key) ────────────────────────────────────────────────────────────

  deposit = (body: { account: string; subaccountIndex?: number; amount: string }) => this.call('deposit', { body: { subaccountIndex: 0, ...body } });
  withdraw = (body: { account: string; subaccountIndex?: number; amount: string }) => this.call('withdraw', { body: { subaccountIndex: 0, ...body } });
  setIndexPrice = (body: { symbol: string; price: string }) => this.call('setIndexPrice', { body });
  releaseIndexPrice = (body: { symbol: string }) => this.call('releaseIndexPrice', { body });
  snapshot = () => this.call('snapshot');
  stateHash = () => this.call('stateHash');

  // ── feeds ────────────────────────────────────────────────────────────────────────────────

  /** The streaming feeds; private channels log in with this client's token (renewed at each reconnect). */
  feed(): Feed {
    return new Feed({ url: this.url, token: () => this.token(), webSocket: this.options.webSocket });
  }

  private requireSigner(): Signer {
    if (this.signer === undefined) throw new Error('this call signs: create the client with a wallet or a signer');
    return this.signer;
  }
}
