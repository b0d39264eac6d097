/**
 * @module http/auth-guard
 *
 * What stands in front of every /account/* handler, in this order:
 *  1. the bearer token (`Authorization: Bearer <JWT>`): missing → 401 `Please add the JWT
 *     token to the header`; bad → 401 `Invalid JWT token`; expired → 401 `JWT token expired,
 *     please log in again`. Failed attempts spend the source address's budget, so a flood of
 *     bad tokens is refused (429) like any other flood;
 *  2. the request budget of the token's account (200/s shared across source addresses, GCRA):
 *     over budget → 429 with `Retry-After`;
 *  3. the strict query (http/endpoint `route()`: the route's declared parameters, 400 when
 *     wrong); for routes that read a subaccount (`scope` given), `account` and `subaccountIndex`
 *     from it, then authorization — the caller is the account, or its delegate for that
 *     subaccount holding the scope (`trade` includes `read`). Refusals, the same on every route
 *     (docs/auth.md): no grant on that subaccount → 403 `Not delegated for account and
 *     subaccount`; a delegate of it without the scope → 403 `Delegation not allowed for request`;
 *     a route whose spec names one text for both says it (`Endpoint.accessRefused`: stats,
 *     positions, fills);
 *  4. a request a delegate carries for an account (`actFor`, or `scope` above) is charged to that
 *     account's budget too: the budget belongs to the account a request acts for, whoever
 *     carries it, so relaying through other wallets' tokens buys no requests. A caller that is
 *     neither the account nor its delegate is refused before it can spend the account's budget.
 * Every reply carries `X-RateLimit-Limit` and `X-RateLimit-Remaining` of the caller's budget.
 * `publicLimited` puts public routes under a per-source-address budget with the same headers.
 *
 * Steps 1 and 2 are the routes' `Door` (http/endpoint): they come before the query is read.
 * Reuse (order routes): `guard.route(endpoint, handler)` → handler gets `{caller, query, body,
 * serialize}` (the body and the response serializer `route()` derives from the declaration);
 * `guard.route(endpoint, handler, 'read')` → also `{account, subaccountIndex}`, authorised;
 * `guard.actFor(caller, account, subaccountIndex, 'trade')` for a check after the
 * body or a lookup names the subaccount (an order's account, a cancel by orderId), which also
 * charges the account; `guard.authorize` checks without charging (who signed an order).
 * May import: http/, auth/ (address types, delegation types, token types).
 */
import type { Address } from '../auth/address.ts';
import type { DelegationStore, Scope } from '../auth/delegation.ts';
import type { AccessTokens } from '../auth/token.ts';
import { codeFailure, failure, say, type DocumentedError } from './errors.ts';
import { addressParam, subaccountParam } from './account-query.ts';
import { isReply, type Query } from './query.ts';
import { route, type DeclaredRoute, type Door, type Endpoint, type Serializer } from './endpoint.ts';
import { RateLimiter, type Budget } from './rate-limit.ts';
import type { Clock } from './ports.ts';
import type { HttpReply, HttpRequest } from './uws.ts';

export const ACCOUNT_REQUESTS_PER_SECOND = 200;
export const ADDRESS_REQUESTS_PER_SECOND = 200;
const SWEEP_EVERY_MS = 10_000;

/** `B`: the type of the body the route's declaration accepts (`Endpoint<B>`). */
export interface CallContext<B = unknown> {
  /** The token's address (lowercase). */
  caller: Address;
  /** The strict query: only declared parameters, each once. */
  query: Query;
  /** The body the declared schema accepted; `undefined` when the route declares none. */
  body: B;
  /** The serializer of the declared response: the success body. */
  serialize: Serializer;
}

export interface SubaccountContext<B = unknown> extends CallContext<B> {
  account: Address;
  subaccountIndex: number;
}

export interface GuardOptions {
  tokens: Pick<AccessTokens, 'verifyHeader'>;
  delegations: Pick<DelegationStore, 'authorizeCaller' | 'authorizeWrite'>;
  clock: Clock;
  /** Per token account; default 200/s. */
  accountLimiter?: RateLimiter;
  /** Per source address (public routes, failed authentications); default 200/s. */
  addressLimiter?: RateLimiter;
}

type Reply = HttpReply | Promise<HttpReply>;

function withBudget(reply: HttpReply, limit: number, budget: Budget): HttpReply {
  const headers: Record<string, string> = { ...reply.headers, 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(budget.remaining) };
  if (!budget.allowed) headers['retry-after'] = String(budget.retryAfterSeconds);
  return { ...reply, headers };
}

/** Over a budget: `<budget>` is `account` or `source address`. */
export const TOO_MANY_REQUESTS: DocumentedError = [429, 'Too many requests: at most <rate> per second per <budget>, retry after the cool-down'];

function tooMany(limiter: RateLimiter, per: 'account' | 'source address'): HttpReply {
  return { status: TOO_MANY_REQUESTS[0], body: say(TOO_MANY_REQUESTS[1], limiter.rate, per), contentType: 'text/plain; charset=utf-8' };
}

export class AccountGuard {
  readonly accountLimiter: RateLimiter;
  readonly addressLimiter: RateLimiter;
  private lastSweep = 0;

  constructor(private readonly options: GuardOptions) {
    this.accountLimiter = options.accountLimiter ?? new RateLimiter(ACCOUNT_REQUESTS_PER_SECOND);
    this.addressLimiter = options.addressLimiter ?? new RateLimiter(ADDRESS_REQUESTS_PER_SECOND);
  }

  /** Steps 1 and 2: the token and the account's budget, whose headers every answer carries. */
  private readonly door: Door<Address> = async (req, next) => {
    const now = this.tick();
    const verified = await this.options.tokens.verifyHeader(req.authorization);
    if (!verified.ok) {
      const budget = this.addressLimiter.take(req.remoteAddress, now);
      return withBudget(budget.allowed ? codeFailure(verified) : tooMany(this.addressLimiter, 'source address'), this.addressLimiter.rate, budget);
    }
    const caller = verified.value;
    const budget = this.accountLimiter.take(caller, now);
    const limit = this.accountLimiter.rate;
    if (!budget.allowed) return withBudget(tooMany(this.accountLimiter, 'account'), limit, budget);
    return withBudget(await next(req, caller), limit, budget);
  };

  /**
   * The route answering `endpoint` behind the guard, given the query its declaration reads; with
   * a `scope`, `account` and `subaccountIndex` are read from it and the caller's right to act on
   * them with that scope checked.
   */
  route<B>(endpoint: Endpoint<B>, handler: (req: HttpRequest, ctx: CallContext<B>) => Reply): DeclaredRoute;
  route<B>(endpoint: Endpoint<B>, handler: (req: HttpRequest, ctx: SubaccountContext<B>) => Reply, scope: Scope): DeclaredRoute;
  route<B>(endpoint: Endpoint<B>, handler: (req: HttpRequest, ctx: SubaccountContext<B>) => Reply, scope?: Scope): DeclaredRoute {
    if (scope === undefined) return route(endpoint, (req, query, serialize, caller: Address, body) => (handler as (req: HttpRequest, ctx: CallContext<B>) => Reply)(req, { caller, query, body, serialize }), this.door);
    // A route that reads its subaccount from the query (reads, cancel-all) declares no body:
    // were one declared, it would be refused before the subaccount's authorization.
    return route(
      endpoint,
      (req, query, serialize, caller: Address, body) => {
        const account = addressParam(query, 'account');
        if (isReply(account)) return account;
        const subaccountIndex = subaccountParam(query);
        if (isReply(subaccountIndex)) return subaccountIndex;
        const refused = this.authorize(caller, account!, subaccountIndex, scope);
        if (refused !== undefined) return endpoint.accessRefused === undefined ? refused : failure(endpoint.accessRefused);
        return this.charge(caller, account!) ?? handler(req, { caller, query, body, serialize, account: account!, subaccountIndex });
      },
      this.door,
    );
  }

  /** Whether `caller` may act on the subaccount with `scope`: undefined when allowed, else the 403. */
  authorize(caller: Address, account: Address, subaccountIndex: number, scope: Scope): HttpReply | undefined {
    const allowed = this.options.delegations.authorizeCaller(caller, account, subaccountIndex, scope);
    return allowed.ok ? undefined : codeFailure(allowed);
  }

  /**
   * Whether `signer` (recovered from an order's signature) may sign orders for the subaccount,
   * by the rule the exchange applies when it admits the order: undefined when it may, else that
   * refusal (`Invalid signature` for a signer unrelated to the account).
   */
  orderSignerRefusal(signer: Address, account: Address, subaccountIndex: number): Exclude<ReturnType<DelegationStore['authorizeWrite']>, { ok: true }> | undefined {
    const allowed = this.options.delegations.authorizeWrite({ action: 'order', account, subaccountIndex, signer });
    return allowed.ok ? undefined : allowed;
  }

  /**
   * Whether `caller` may act on the subaccount with `scope` (as `authorize`), and then the
   * account's own budget when the caller is not the account (its own was spent by `guarded`):
   * undefined when allowed, else the 403 or the 429.
   */
  actFor(caller: Address, account: Address, subaccountIndex: number, scope: Scope): HttpReply | undefined {
    return this.authorize(caller, account, subaccountIndex, scope) ?? this.charge(caller, account);
  }

  /** Spends one request of `account`'s budget for a request `caller` carries (nothing when they are one). */
  charge(caller: Address, account: Address): HttpReply | undefined {
    if (caller === account) return undefined;
    const budget = this.accountLimiter.take(account, this.tick());
    return budget.allowed ? undefined : withBudget(tooMany(this.accountLimiter, 'account'), this.accountLimiter.rate, budget);
  }

  /** A public route under the per-source-address budget, spent before anything of the request is read. */
  publicLimited(declared: DeclaredRoute): DeclaredRoute {
    const handler = declared.handler;
    return {
      ...declared,
      // Synchronous when the route is: a promise here would make the adapter hold the
      // connection for an answer that is already there (pause, onAborted, cork; http/uws-serve).
      handler: (req) => {
        const rate = this.addressLimiter.rate;
        const budget = this.addressLimiter.take(req.remoteAddress, this.tick());
        if (!budget.allowed) return withBudget(tooMany(this.addressLimiter, 'source address'), rate, budget);
        const reply = handler(req);
        return reply instanceof Promise ? reply.then((r) => withBudget(r, rate, budget)) : withBudget(reply, rate, budget);
      },
    };
  }

  /** The time now; forgets refilled budgets every few seconds so memory stays bounded. */
  private tick(): number {
    const now = this.options.clock();
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.accountLimiter.sweep(now);
      this.addressLimiter.sweep(now);
      this.lastSweep = now;
    }
    return now;
  }
}
