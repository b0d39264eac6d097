/**
 * @module http/account-routes
 *
 * The account side of the REST API as one route list the gateway spreads into its table:
 * wallet login (public, per-source-address budget) and every /account/* route except the order
 * routes, each behind the `AccountGuard` (token, per-account budget, read authorization).
 *
 * Which refusal text a route shows is one rule for every route (docs/auth.md "Who may do
 * what"): `Not delegated for account and subaccount` for a caller with no grant on the
 * subaccount (a stranger, a revoked delegate, another subaccount's delegate), `Delegation not
 * allowed for request` for a delegate of it without the scope or where delegates may not act.
 * May import: http/, history/ (types), auth/ (types), config/market (types), sequencer/sequencer.
 */
import type { MarketSpec } from '../config/market.ts';
import type { TransferHistoryReader } from '../history/transfers.ts';
import { AccountGuard } from './auth-guard.ts';
import { paramNames } from './query.ts';
import type { AccountReadPort, AccountWritePort, AuthPort, Clock, WriteResult } from './ports.ts';
import type { Route } from './uws.ts';
import { GatewayCode } from './errors.ts';
import { OverloadedError } from '../sequencer/sequencer.ts';
import { challengeRoute, loginRoute } from './routes/login.ts';
import { balanceRoute, BALANCE_QUERY, statsRoute, STATS_QUERY } from './routes/account-stats.ts';
import { positionsRoute, POSITIONS_QUERY } from './routes/account-positions.ts';
import { fillsRoute, FILLS_QUERY, type FillHistory } from './routes/account-fills.ts';
import { marginSettingsRoute, marginUpdateRoute, MARGIN_QUERY } from './routes/account-margin.ts';
import { transferHistoryRoute, transferRoute, TRANSFER_HISTORY_QUERY } from './routes/account-transfer.ts';
import { delegatesRoute, DELEGATES_QUERY, delegationRoute, signersRoute, SIGNERS_QUERY } from './routes/account-delegates.ts';
import { nonceRoute, NONCE_QUERY } from './routes/account-nonce.ts';

export interface AccountApiOptions {
  markets: readonly MarketSpec[];
  clock: Clock;
  accounts: AccountReadPort;
  writes: AccountWritePort;
  auth: AuthPort;
  fills: FillHistory;
  transfers: TransferHistoryReader;
}

/** The guard of every /account/* route (share one per process: it holds the budgets). */
export function accountGuard(options: Pick<AccountApiOptions, 'auth' | 'accounts' | 'clock'>): AccountGuard {
  return new AccountGuard({ tokens: options.auth.login.tokens, delegations: options.accounts.delegations, clock: options.clock });
}

/** POST /auth/challenge and POST /auth/login, under the per-source-address budget. */
export function loginRoutes(auth: AuthPort, guard: AccountGuard): Route[] {
  return [
    { method: 'post', pattern: '/auth/challenge', handler: guard.publicLimited(challengeRoute(auth.login)) },
    { method: 'post', pattern: '/auth/login', handler: guard.publicLimited(loginRoute(auth.login)) },
  ];
}

/** A write the sequencer cannot take now is the gateway's 503 (`GatewayCode.Overloaded`), like an order's. */
function answeringOverload(writes: AccountWritePort): AccountWritePort {
  const refuse = (error: unknown): WriteResult => {
    if (error instanceof OverloadedError) return { ok: false, code: GatewayCode.Overloaded, params: { reason: error.reason } };
    throw error;
  };
  return {
    transfer: (write) => writes.transfer(write).catch(refuse),
    setMargin: (write) => writes.setMargin(write).catch(refuse),
    changeDelegation: (write) => writes.changeDelegation(write).catch(refuse),
  };
}

/** Every /account/* route of this module (the order routes are the lead's). */
export function accountRoutes(options: AccountApiOptions, guard: AccountGuard): Route[] {
  const { accounts, markets, auth } = options;
  const writes = answeringOverload(options.writes);
  const read = { scope: 'read' } as const;
  return [
    { method: 'get', pattern: '/account/stats', handler: guard.guarded(statsRoute(accounts), { ...read, params: paramNames(STATS_QUERY) }) },
    { method: 'get', pattern: '/account/positions', handler: guard.guarded(positionsRoute(accounts, markets), { ...read, params: paramNames(POSITIONS_QUERY) }) },
    { method: 'get', pattern: '/account/fills', handler: guard.guarded(fillsRoute(accounts, markets, options.fills), { ...read, params: paramNames(FILLS_QUERY) }) },
    { method: 'get', pattern: '/account/balance', handler: guard.guarded(balanceRoute(accounts, markets), { ...read, params: paramNames(BALANCE_QUERY) }) },
    { method: 'get', pattern: '/account/margin', handler: guard.guarded(marginSettingsRoute(accounts, markets), { ...read, params: paramNames(MARGIN_QUERY) }) },
    { method: 'post', pattern: '/account/margin', handler: guard.guarded(marginUpdateRoute(accounts, markets, guard, auth, writes)) },
    { method: 'post', pattern: '/account/transfer', handler: guard.guarded(transferRoute(accounts, auth, writes)) },
    { method: 'get', pattern: '/account/transfer/history', handler: guard.guarded(transferHistoryRoute(accounts, options.transfers), { ...read, params: paramNames(TRANSFER_HISTORY_QUERY) }) },
    { method: 'get', pattern: '/account/delegates', handler: guard.guarded(delegatesRoute(accounts), { ...read, params: paramNames(DELEGATES_QUERY) }) },
    { method: 'post', pattern: '/account/delegates', handler: guard.guarded(delegationRoute(auth, writes)) },
    { method: 'get', pattern: '/account/signers', handler: guard.guarded(signersRoute(accounts), { ...read, params: paramNames(SIGNERS_QUERY) }) },
    { method: 'get', pattern: '/account/nonce', handler: guard.guarded(nonceRoute(accounts), { ...read, params: paramNames(NONCE_QUERY) }) },
  ];
}
