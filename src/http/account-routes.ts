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
 * May import: http/, history/transfers (types), config/market (types).
 */
import type { MarketSpec } from '../config/market.ts';
import type { TransferHistoryReader } from '../history/transfers.ts';
import type { AccountGuard } from './auth-guard.ts';
import { route, type DeclaredRoute } from './endpoint.ts';
import { isOverloaded, type AccountReadPort, type AccountWritePort, type AuthPort, type Clock, type WriteResult } from './ports.ts';
import { GatewayCode } from './errors.ts';
import { CHALLENGE, challengeRoute, LOGIN, loginRoute } from './routes/login.ts';
import { BALANCE, balanceRoute, STATS, statsRoute } from './routes/account-stats.ts';
import { POSITIONS, positionsRoute } from './routes/account-positions.ts';
import { FILLS, fillsRoute, type FillHistory } from './routes/account-fills.ts';
import { MARGIN_SETTINGS, MARGIN_UPDATE, marginSettingsRoute, marginUpdateRoute } from './routes/account-margin.ts';
import { TRANSFER, TRANSFER_HISTORY, transferHistoryRoute, transferRoute } from './routes/account-transfer.ts';
import { DELEGATES, delegatesRoute, DELEGATION, delegationRoute, SIGNERS, signersRoute } from './routes/account-delegates.ts';
import { NONCE, nonceRoute } from './routes/account-nonce.ts';

export interface AccountApiOptions {
  markets: readonly MarketSpec[];
  clock: Clock;
  accounts: AccountReadPort;
  writes: AccountWritePort;
  auth: AuthPort;
  fills: FillHistory;
  transfers: TransferHistoryReader;
}

/** POST /auth/challenge and POST /auth/login, under the per-source-address budget. */
export function loginRoutes(auth: AuthPort, guard: AccountGuard): { challenge: DeclaredRoute; login: DeclaredRoute } {
  return {
    challenge: guard.publicLimited(route(CHALLENGE, challengeRoute(auth.login))),
    login: guard.publicLimited(route(LOGIN, loginRoute(auth.login))),
  };
}

/** A write the sequencer cannot take now is the gateway's 503 (`GatewayCode.Overloaded`), like an order's. */
function answeringOverload(writes: AccountWritePort): AccountWritePort {
  const refuse = (error: unknown): WriteResult => {
    if (isOverloaded(error)) return { ok: false, code: GatewayCode.Overloaded, params: { reason: error.reason } };
    throw error;
  };
  return {
    transfer: (write) => writes.transfer(write).catch(refuse),
    setMargin: (write) => writes.setMargin(write).catch(refuse),
    changeDelegation: (write) => writes.changeDelegation(write).catch(refuse),
  };
}

/** Every /account/* route of this module (the order routes are routes/orders'), by its name in http/endpoints. */
export function accountRoutes(options: AccountApiOptions, guard: AccountGuard) {
  const { accounts, markets, auth } = options;
  const writes = answeringOverload(options.writes);
  return {
    stats: guard.route(STATS, statsRoute(accounts), 'read'),
    positions: guard.route(POSITIONS, positionsRoute(accounts, markets), 'read'),
    fills: guard.route(FILLS, fillsRoute(accounts, markets, options.fills), 'read'),
    balance: guard.route(BALANCE, balanceRoute(accounts, markets), 'read'),
    marginSettings: guard.route(MARGIN_SETTINGS, marginSettingsRoute(accounts, markets), 'read'),
    marginUpdate: guard.route(MARGIN_UPDATE, marginUpdateRoute(accounts, markets, guard, auth, writes)),
    transfer: guard.route(TRANSFER, transferRoute(accounts, auth, writes)),
    transferHistory: guard.route(TRANSFER_HISTORY, transferHistoryRoute(accounts, options.transfers), 'read'),
    delegates: guard.route(DELEGATES, delegatesRoute(accounts), 'read'),
    delegation: guard.route(DELEGATION, delegationRoute(auth, writes)),
    signers: guard.route(SIGNERS, signersRoute(accounts), 'read'),
    nonce: guard.route(NONCE, nonceRoute(accounts), 'read'),
  };
}
