/**
 * Turns a fuzz `Plan` into bytes on the wire and judges what comes back. It fills the plan's
 * `Ref`s from what the run has seen (traders' addresses, order ids and client ids from earlier
 * replies, fresh nonces), signs `SignedSpec` bodies with the trader's viem wallet against the
 * EIP-712 domain and types of GET /config (then applies the plan's tampering), sends the
 * request with the raw client, and checks the reply against the API's promises:
 *
 *  - an answer always comes (a timeout means the server hung or died); a closed connection is
 *    accepted only for a method token uWebSockets.js does not parse;
 *  - no 5xx but 503 (overloaded);
 *  - an error (≥ 400) has a non-empty text/plain body; a success is JSON (the HTML reference
 *    page aside); a body over the 64 KiB limit is 413, on a read as on a write.
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { canonicalOrderType } from '../../src/auth/typed-data.ts';
import { ZERO_ADDRESS } from '../../src/types/address.ts';
import { send, type Exchange, type RawRequest } from './fuzz-http.ts';
import { renderJson, resolveRefs, Ref } from './fuzz-schema.ts';
import type { AuthSpec, FuzzWorld, OrderDraft, Plan, SignedSpec, Tamper } from './fuzz-plans.ts';
import { orderTypedMessage, type Trader } from './harness.ts';
import { ENDPOINTS } from '../../src/http/endpoints.ts';

export const MAX_BODY_BYTES = 64 * 1024;
/** Methods uWebSockets.js parses; other tokens may be dropped without a response. */
const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface Sent {
  plan: Plan;
  request: RawRequest;
  exchange: Exchange;
}

export interface Eip712 {
  domain: Record<string, unknown>;
  types: Record<string, Array<{ name: string; type: string }>>;
}

export class FuzzExecutor {
  /** Order ids and (account, clientId) pairs seen in replies, newest last. */
  readonly orderIds: string[] = [];
  readonly clientIds: Array<{ account: string; clientId: string }> = [];
  /** Status counts per plan label. */
  readonly stats = new Map<string, Map<string, number>>();
  /** Error replies by route, status and text. */
  readonly replies = new Map<string, number>();
  /** Ids of liquidation orders seen in replies (coverage: the clock liquidated someone). */
  readonly liquidations = new Set<string>();
  private readonly lastNonce = new Map<number, number>();

  constructor(
    private readonly port: number,
    private readonly world: FuzzWorld,
    private readonly traders: readonly Trader[],
    private readonly eip712: Eip712,
    private readonly timeoutMs: number,
  ) {}

  private index(i: number): number {
    return i % this.traders.length;
  }

  private trader(i: number): Trader {
    return this.traders[this.index(i)];
  }

  private nonceOf(i: number): number {
    const n = this.trader(i).nextNonce();
    this.lastNonce.set(this.index(i), n);
    return n;
  }

  /** A fresh nonce, or with `replay` the trader's last one again. */
  private nonceFor(i: number, replay: boolean): number {
    return replay && this.lastNonce.has(this.index(i)) ? this.lastNonce.get(this.index(i))! : this.nonceOf(i);
  }

  /** The value of `ref` for a request made by trader `who`. */
  private fill(ref: Ref, who: number): unknown {
    switch (ref.kind) {
      case 'self':
        return this.trader(who).address;
      case 'trader':
        return this.trader(ref.pick).address;
      case 'orderId':
        return this.orderIds.length > 0 ? this.orderIds[ref.pick % this.orderIds.length] : '0x' + ref.pick.toString(16).padStart(16, '0');
      case 'clientId':
        return this.clientIds.length > 0 ? this.clientIds[ref.pick % this.clientIds.length].clientId : `none-${ref.pick}`;
      case 'nonce':
        return this.nonceOf(who);
      case 'future':
        return Date.now() + 60_000;
    }
  }

  private authorization(auth: AuthSpec): string | undefined {
    if (auth.kind === 'none') return undefined;
    if (auth.kind === 'header') return auth.value;
    const token = this.trader(auth.trader).token;
    if (auth.kind === 'token') return `Bearer ${token}`;
    const [header, payload, signature] = token.split('.');
    switch (auth.how) {
      case 'flip':
        return `Bearer ${header}.${payload}.${signature.slice(0, 5)}${signature[5] === 'A' ? 'B' : 'A'}${signature.slice(6)}`;
      case 'truncate':
        return `Bearer ${header}.${payload}.`;
      case 'algNone':
        return `Bearer ${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
      case 'lowercaseScheme':
        return `bearer ${token}`;
      case 'twice':
        return `Bearer ${token}, Bearer ${token}`;
    }
  }

  private sign(signer: PrivateKeyAccount, primaryType: string, message: Record<string, unknown>): Promise<string> {
    return signer.signTypedData({ domain: this.eip712.domain, types: { [primaryType]: this.eip712.types[primaryType] }, primaryType, message } as Parameters<PrivateKeyAccount['signTypedData']>[0]);
  }

  /** The body of one signed order, as a client builds it; `signer` may be a delegate of the draft's trader. */
  private async orderBody(draft: OrderDraft, signer: number, replay: boolean): Promise<Record<string, any>> {
    const who = draft.trader;
    const fill = (v: unknown) => (v instanceof Ref ? this.fill(v, who) : v);
    const body = {
      account: this.trader(who).address,
      subaccountIndex: draft.subaccountIndex,
      symbol: draft.symbol,
      orderType: draft.orderType,
      price: draft.price,
      quantity: draft.quantity,
      nonce: this.nonceFor(who, replay),
      expiresAt: draft.expiresAt === 0 ? 0 : draft.expiresAt === 'future' ? Date.now() + 3_600_000 : Date.now() - 1_000,
      flags: { ioc: draft.ioc, postOnly: draft.postOnly, reduceOnly: draft.reduceOnly },
      originator: ZERO_ADDRESS,
      originatorFee: 0,
      clientId: fill(draft.clientId) as string | null,
      triggerPrice: draft.triggerPrice,
      parentOrderId: fill(draft.parentOrderId) as string | null,
      period: draft.period,
      trailingPercent: draft.trailingPercent,
    };
    // A hostile orderType signs in the spelling the server would canonicalise it to, if any.
    const signature = await this.sign(this.trader(signer).wallet, 'Order', orderTypedMessage({ ...body, orderType: canonicalOrderType(body.orderType) ?? body.orderType }));
    return { ...body, signatures: [signature] };
  }

  /** The signed body, tampered with as the spec says, and the trader whose token goes with it. */
  private async signedBody(spec: SignedSpec): Promise<{ value: unknown; tokenOf: number }> {
    const other = (i: number) => this.index(i + 1);
    const replay = spec.tamper === 'replayNonce';
    if (spec.action === 'order') {
      const signer = spec.tamper === 'otherSigner' ? other(spec.signer) : spec.signer;
      const orders = [];
      for (const draft of spec.orders) orders.push(await this.orderBody(draft, signer, replay));
      const first = orders[0];
      return this.tampered(spec.tamper, spec.batch ? { orders } : first, first, () => (first.price = first.price + '0'), spec.signer);
    }
    const trader = this.trader(spec.trader);
    const nonce = this.nonceFor(spec.trader, replay);
    const expiresAt = Date.now() + 60_000;
    let primaryType: string;
    let message: Record<string, unknown>;
    let signer: number;
    let edit: (b: Record<string, any>) => void;
    if (spec.action === 'transfer') {
      primaryType = 'Transfer';
      message = {
        accountFrom: trader.address,
        accountTo: this.trader(spec.to).address,
        subaccountIndexFrom: spec.subFrom,
        subaccountIndexTo: spec.subTo,
        amount: spec.amount,
        feedId: this.world.markets[spec.feed % this.world.markets.length].feedId,
        nonce,
        expiresAt: spec.expired ? Date.now() - 1_000 : expiresAt,
        target: trader.address,
      };
      signer = spec.tamper === 'otherSigner' ? other(spec.trader) : spec.trader;
      edit = (b) => (b.amount = b.amount + '1');
    } else if (spec.action === 'margin') {
      primaryType = 'MarginUpdate';
      message = { account: trader.address, subaccountIndex: 0, symbol: spec.symbol, isolated: spec.isolated, margin: spec.margin, nonce, expiresAt };
      signer = spec.tamper === 'otherSigner' ? other(spec.signer) : spec.signer;
      edit = (b) => (b.isolated = !b.isolated);
    } else {
      primaryType = 'Delegation';
      message = { account: trader.address, subaccountIndex: 0, delegate: this.trader(spec.delegate).address, scopes: spec.scopes, action: spec.change, nonce, expiresAt };
      signer = spec.tamper === 'otherSigner' ? other(spec.trader) : spec.trader;
      edit = (b) => (b.scopes = b.scopes === 'read' ? 'trade' : 'read');
    }
    const typed = Object.fromEntries(Object.entries(message).map(([k, v]) => [k, k === 'nonce' || k === 'expiresAt' ? BigInt(v as number) : v]));
    const body: Record<string, any> = { ...message, signatures: [await this.sign(this.trader(signer).wallet, primaryType, typed)] };
    return this.tampered(spec.tamper, body, body, () => edit(body), spec.trader);
  }

  /** `body` after `tamper`; `signed` is the object carrying the signatures (the first order of a batch). */
  private tampered(tamper: Tamper, body: unknown, signed: Record<string, any>, edit: () => void, owner: number): { value: unknown; tokenOf: number } {
    if (tamper === 'editAfterSigning') edit();
    if (tamper === 'badSignature') signed.signatures = ['0x' + 'ab'.repeat(64) + '1b'];
    if (tamper === 'noSignature') signed.signatures = [];
    if (tamper === 'twoSignatures') signed.signatures = [signed.signatures[0], signed.signatures[0]];
    return { value: body, tokenOf: tamper === 'otherToken' ? this.index(owner + 1) : owner };
  }

  /** The plan as a request: refs filled, body rendered or signed, token attached. */
  async render(plan: Plan): Promise<RawRequest> {
    const who = plan.auth.kind === 'token' || plan.auth.kind === 'forged' ? plan.auth.trader : 0;
    const text = (v: unknown) => String(v instanceof Ref ? this.fill(v, who) : v);
    const path = '/' + plan.path.map((s) => (typeof s === 'string' ? s : s.raw ? text(s.param) : encodeURIComponent(text(s.param)))).join('/');
    const query = plan.query.map((q) => `${encodeURIComponent(q.name)}=${q.raw ? text(q.value) : encodeURIComponent(text(q.value))}`).join('&');
    const headers: Array<[string, string]> = [...plan.headers];
    let auth = plan.auth;
    let body: Buffer | undefined;
    switch (plan.body.kind) {
      case 'none':
        break;
      case 'json':
        body = Buffer.from(renderJson(resolveRefs(plan.body.value, (ref) => this.fill(ref, who))), 'utf8');
        break;
      case 'text':
        body = Buffer.from(plan.body.text, 'utf8');
        break;
      case 'bytes':
        body = Buffer.from(plan.body.bytes);
        break;
      case 'filler':
        body = Buffer.from(JSON.stringify('a'.repeat(plan.body.size - 2)), 'utf8');
        break;
      case 'signed': {
        const signed = await this.signedBody(plan.body.spec);
        body = Buffer.from(JSON.stringify(signed.value), 'utf8');
        auth = { kind: 'token', trader: signed.tokenOf };
        break;
      }
    }
    const authorization = this.authorization(auth);
    if (authorization !== undefined) headers.push(['Authorization', authorization]);
    return { method: plan.method, target: query === '' ? path : `${path}?${query}`, headers, body, chunkBytes: body === undefined ? undefined : plan.chunkBytes };
  }

  /** Sends the plan, counts the outcome, remembers the ids its reply names. */
  async run(plan: Plan): Promise<Sent> {
    const request = await this.render(plan);
    const exchange = await send(this.port, request, { sourceAddress: `127.0.0.${plan.source}`, timeoutMs: this.timeoutMs });
    const status = exchange.kind === 'response' ? String(exchange.response.status) : exchange.kind;
    const counts = this.stats.get(plan.label) ?? new Map<string, number>();
    counts.set(status, (counts.get(status) ?? 0) + 1);
    this.stats.set(plan.label, counts);
    if (exchange.kind === 'response' && exchange.response.status >= 400) {
      const text = `${plan.label} ${status} ${exchange.response.body.subarray(0, 70).toString('utf8')}`;
      this.replies.set(text, (this.replies.get(text) ?? 0) + 1);
    }
    if (exchange.kind === 'response' && exchange.response.status === 200) {
      try {
        this.learn(JSON.parse(exchange.response.body.toString('utf8')));
      } catch {
        // Not JSON: violation() reports it.
      }
    }
    return { plan, request, exchange };
  }

  /** Remembers the order ids, client ids and liquidations a JSON reply names. */
  learn(value: unknown): void {
    if (Array.isArray(value)) {
      for (const v of value) this.learn(v);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const o = value as Record<string, unknown>;
    if (typeof o.orderId === 'string' && o.groupId === 'liquidation') this.liquidations.add(o.orderId);
    if (typeof o.orderId === 'string' && !this.orderIds.includes(o.orderId)) {
      this.orderIds.push(o.orderId);
      if (this.orderIds.length > 500) this.orderIds.shift();
    }
    if (typeof o.clientId === 'string' && o.clientId !== '' && typeof o.account === 'string') {
      this.clientIds.push({ account: o.account, clientId: o.clientId });
      if (this.clientIds.length > 200) this.clientIds.shift();
    }
    for (const v of Object.values(o)) if (typeof v === 'object') this.learn(v);
  }
}

/** The reference page and the market page: HTML, not JSON. */
/** Routes whose success is not JSON, by path: the declared content type (the page, the reference, the probes, the metrics). */
const NOT_JSON = new Map(ENDPOINTS.filter((e) => e.contentType !== undefined && e.contentType !== 'application/json' && e.method === 'get').map((e) => [e.path, e.contentType!]));

/** What is wrong with the reply, or undefined when it keeps the API's promises. */
export function violation({ plan, request, exchange }: Sent): string | undefined {
  if (exchange.kind === 'timeout') return 'no answer before the timeout: the server hung or died';
  if (exchange.kind === 'closed') return HTTP_METHODS.has(request.method) ? `connection closed without a response (${exchange.detail})` : undefined;
  const { status, headers, body } = exchange.response;
  const contentType = headers.get('content-type') ?? '';
  if (status >= 500 && status !== 503) return `status ${status}`;
  if (plan.body.kind === 'filler' && plan.body.size > MAX_BODY_BYTES && (BODY_METHODS.has(request.method) || request.method === 'GET') && status !== 413) return `a ${plan.body.size}-byte body got ${status}, not 413`;
  if (request.method === 'HEAD') return undefined;
  // OPTIONS on a known path: 204, Allow, nothing else.
  if (status === 204) return request.method === 'OPTIONS' && body.length === 0 && headers.get('allow') !== null ? undefined : `204 to ${request.method} (body ${body.length} bytes, Allow ${headers.get('allow')})`;
  if (status >= 400) {
    if (!contentType.startsWith('text/plain')) return `error ${status} with content-type ${JSON.stringify(contentType)}`;
    if (body.toString('utf8').trim() === '') return `error ${status} with an empty body`;
    return undefined;
  }
  const declared = NOT_JSON.get(request.target.split('?')[0]);
  if (declared !== undefined) return contentType.startsWith(declared) ? undefined : `GET ${request.target} with content-type ${JSON.stringify(contentType)}, declared ${declared}`;
  if (!contentType.startsWith('application/json')) return `success ${status} with content-type ${JSON.stringify(contentType)}`;
  try {
    JSON.parse(body.toString('utf8'));
  } catch {
    return `success ${status} whose body is not JSON`;
  }
  return undefined;
}

/** The request and reply, short enough for a failure message. */
export function describeSent({ request, exchange }: Sent): string {
  const body = request.body === undefined ? '' : request.body.length > 600 ? `${request.body.subarray(0, 600).toString('utf8')}… (${request.body.length} bytes)` : request.body.toString('utf8');
  const headers = [...request.headers, ...(request.chunkBytes === undefined ? [] : [['Transfer-Encoding', `chunked (${request.chunkBytes}-byte chunks)`] as const])]
    .map(([k, v]) => `${k}: ${v.length > 80 ? v.slice(0, 80) + '…' : v}`)
    .join('\n  ');
  const reply =
    exchange.kind === 'response'
      ? `${exchange.response.status} ${exchange.response.headers.get('content-type') ?? '(no content-type)'}\n  ${exchange.response.body.subarray(0, 400).toString('utf8')}`
      : exchange.kind === 'closed'
        ? `connection closed: ${exchange.detail}`
        : 'timeout';
  return `${request.method} ${request.target.length > 300 ? request.target.slice(0, 300) + '…' : request.target}\n  ${headers}\n  ${body}\n→ ${reply}`;
}
