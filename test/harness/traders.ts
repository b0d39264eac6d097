/**
 * What a test talks to an exchange with, whichever exchange it is (a real one over HTTP,
 * test/e2e/harness; the in-process one, test/harness/in-process-exchange): the client
 * interface (`ApiClient`: a request answered with a `Reply`, the operator's key at hand), a
 * client over HTTP (`apiClient`), and traders that log in with a signed challenge and sign
 * orders with viem exactly as a client would, using the types from GET /config
 * (`Trader`, `fundedTraders`: the shared fixture of funded traders).
 */
import { Agent, request as httpRequest } from 'node:http';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { TESTNET_OPERATOR_KEY } from '../../src/config/process.ts';
import { orderMessage, type OrderBody as ClientOrderBody } from '../../src/client/index.ts';
import { lowercaseAddress, type Address } from '../../src/auth/address.ts';

/**
 * Sends a request again while it is refused 429, after the `Retry-After` the refusal names: a
 * verifier that reads thousands of orders one by one stays a well-behaved client of the
 * per-account budget instead of failing on a fast machine.
 */
export async function withinBudget(send: () => Promise<Reply>): Promise<Reply> {
  for (;;) {
    const reply = await send();
    if (reply.status !== 429) return reply;
    await new Promise((resolve) => setTimeout(resolve, Number(reply.headers.get('retry-after') ?? '1') * 1000));
  }
}

export interface Reply {
  status: number;
  text: string;
  headers: Headers;
  json<T = any>(): T;
}

/** What a trader talks to: a base URL with the operator key at hand. */
export interface ApiClient {
  url: string;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  operator(method: string, path: string, body?: unknown): Promise<Reply>;
}

/**
 * Keep-alive connections shared by every client of this process, as fetch's global pool was. An
 * idle one is dropped after 4 s, as undici (fetch) drops its own: the exchange closes a connection
 * idle for about 10 s (uWebSockets.js's idle timeout, checked every 4 s), and a request written
 * on one at the moment it closes is reset unanswered (docs/api.md "Connections"). A test process
 * busy for seconds between two requests (replaying a history, hashing a journal) would otherwise
 * meet that moment now and then.
 */
const keepAlive = new Agent({ keepAlive: true, timeout: 4_000 });

/**
 * A client of the exchange at `url` (a server in another process, say), holding its operator key.
 * Requests go out over node:http, not fetch: about a fifth of fetch's CPU per request (no WHATWG
 * streams), which tens of thousands of requests in `npm test` notice. The path is resolved as a
 * URL (`/a/../b` is `/b`), as fetch does. A request that cannot connect, or whose connection
 * drops, rejects with the socket's error (`code` ECONNREFUSED, ECONNRESET, …).
 */
export function apiClient(url: string, operatorKey = TESTNET_OPERATOR_KEY): ApiClient {
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const sent = payload === undefined ? headers : { 'content-type': 'application/json', ...headers, 'content-length': String(Buffer.byteLength(payload)) };
      const req = httpRequest(new URL(url + path), { method, headers: sent, agent: keepAlive }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const replyHeaders = new Headers();
          for (let i = 0; i < res.rawHeaders.length; i += 2) replyHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
          resolve({ status: res.statusCode!, text, headers: replyHeaders, json: () => JSON.parse(text) });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  return { url, request, operator: (method, path, body) => request(method, path, body, { 'x-operator-key': operatorKey }) };
}

export interface OrderFields {
  symbol?: string;
  price: string;
  quantity: string;
  orderType?: string;
  ioc?: boolean;
  postOnly?: boolean;
  reduceOnly?: boolean;
  clientId?: string | null;
  expiresAt?: number;
  subaccountIndex?: number;
  nonce?: number;
  period?: number | null;
  triggerPrice?: string | null;
  trailingPercent?: string | null;
  parentOrderId?: string | null;
  /** Paid the originator fee; the zero address when absent. */
  originator?: string;
  /** 10^-8 of notional. */
  originatorFee?: number;
}

/** The EIP-712 `Order` message of a request body, by the published rules: the client's own mapping (src/client/signing.ts). */
export const orderTypedMessage = (body: Record<string, unknown>): Record<string, unknown> => orderMessage(body as unknown as ClientOrderBody);

/**
 * `count` traders logged in on `ex`, each with `amount` USD deposited on subaccount 0 — the
 * opening of most trading tests. One after another, so their accounts are created in order.
 */
export async function fundedTraders(ex: ApiClient, count: number, amount: string): Promise<Trader[]>;
/** One trader per amount, each logged in and funded with its own. */
export async function fundedTraders(ex: ApiClient, amounts: readonly string[]): Promise<Trader[]>;
export async function fundedTraders(ex: ApiClient, countOrAmounts: number | readonly string[], amount = ''): Promise<Trader[]> {
  const amounts = typeof countOrAmounts === 'number' ? Array.from({ length: countOrAmounts }, () => amount) : countOrAmounts;
  const traders: Trader[] = [];
  for (const each of amounts) {
    const trader = await new Trader(ex).login();
    await trader.fund(each);
    traders.push(trader);
  }
  return traders;
}

/** A wallet that trades through the API: logs in, signs orders with viem, reads its account. */
export class Trader {
  readonly wallet: PrivateKeyAccount;
  token = '';
  private nonce = Date.now() * 1000;
  private config: any;

  constructor(
    /** Where it trades; a crash test points it at each restarted server in turn. */
    public ex: ApiClient,
    key = generatePrivateKey(),
  ) {
    this.wallet = privateKeyToAccount(key);
  }

  get address(): Address {
    return lowercaseAddress(this.wallet.address);
  }

  nextNonce(): number {
    return ++this.nonce;
  }

  async login(): Promise<this> {
    this.config = (await this.ex.request('GET', '/config')).json();
    const challenge = (await this.ex.request('POST', '/auth/challenge', { address: this.wallet.address })).json();
    const signature = await this.wallet.signMessage({ message: challenge.message });
    const login = await this.ex.request('POST', '/auth/login', { message: challenge.message, signature });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
    this.token = login.json().token;
    return this;
  }

  async fund(amount = '10000', subaccountIndex = 0): Promise<void> {
    const r = await this.ex.operator('POST', '/operator/deposit', { account: this.address, subaccountIndex, amount });
    if (r.status !== 200) throw new Error(`deposit failed: ${r.status} ${r.text}`);
  }

  auth(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }

  /** The request body of an order of any type, before its signature: every field a client sends. */
  orderBody(fields: OrderFields, nonce: number = fields.nonce ?? this.nextNonce()) {
    return {
      account: this.address,
      subaccountIndex: fields.subaccountIndex ?? 0,
      symbol: fields.symbol ?? 'BTC-USD-PERP',
      orderType: fields.orderType ?? 'limit',
      price: fields.price,
      quantity: fields.quantity,
      nonce,
      expiresAt: fields.expiresAt ?? 0,
      flags: { ioc: fields.ioc ?? false, postOnly: fields.postOnly ?? false, reduceOnly: fields.reduceOnly ?? false },
      originator: fields.originator ?? '0x0000000000000000000000000000000000000000',
      originatorFee: fields.originatorFee ?? 0,
      clientId: fields.clientId ?? null,
      triggerPrice: fields.triggerPrice ?? null,
      parentOrderId: fields.parentOrderId ?? null,
      period: fields.period ?? null,
      trailingPercent: fields.trailingPercent ?? null,
    };
  }

  /** The signed request body of an order of any type, as a client builds it (orderType signed in lowerCamel). */
  async signedOrder(fields: OrderFields, signer: PrivateKeyAccount = this.wallet): Promise<Record<string, unknown>> {
    const body = this.orderBody(fields);
    const { domain, types } = this.config.eip712;
    const signature = await signer.signTypedData({
      domain,
      types: { Order: types.Order },
      primaryType: 'Order',
      message: orderTypedMessage(body),
    });
    return { ...body, signatures: [signature] };
  }

  async place(fields: OrderFields): Promise<Reply> {
    return this.ex.request('POST', '/account/order', await this.signedOrder(fields), this.auth());
  }

  get(path: string): Promise<Reply> {
    return this.ex.request('GET', path, undefined, this.auth());
  }

  send(method: string, path: string, body?: unknown): Promise<Reply> {
    return this.ex.request(method, path, body, this.auth());
  }
}
