/**
 * A server with the login, account and docs routes for one test file, on a free loopback port,
 * stopped after the file: real Ledger, DelegationStore, NonceStore and WalletLogin, real LMDB
 * projections (fills, transfers) in a temporary directory, and an AccountWritePort that applies
 * writes as the sequencer does (admission, then the ledger) and records every call.
 * Mirrors what gateway.ts will register, so these tests need no edit there.
 */
import { after } from 'node:test';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { parseMarkets } from '../../src/config/market.ts';
import { PROFILES } from '../../src/config/profile.ts';
import { admitDelegationChange, admitSignedWrite, type AuthState } from '../../src/auth/admission.ts';
import type { Address } from '../../src/auth/address.ts';
import { DelegationStore } from '../../src/auth/delegation.ts';
import { NonceStore } from '../../src/auth/nonces.ts';
import { WalletLogin } from '../../src/auth/login.ts';
import { nobleBackend } from '../../src/auth/recovery.ts';
import { inlineRecovery, typedRecoveryOf } from '../../src/auth/signed-request.ts';
import { eip712Domain, TYPES, type MessageOf, type PrimaryType } from '../../src/auth/typed-data.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { TransferHistory } from '../../src/history/transfers.ts';
import { failure, GatewayCode } from '../../src/http/errors.ts';
import { startHttpServer, type Route } from '../../src/http/uws.ts';
import { ENDPOINTS } from '../../src/http/endpoints.ts';
import { accountGuard, accountRoutes, loginRoutes } from '../../src/http/account-routes.ts';
import { docsRoutes } from '../../src/http/routes/openapi.ts';
import type { AccountReadPort, AccountWritePort, AuthPort, DelegationWrite, MarginWrite, TransferWrite, WriteResult } from '../../src/http/ports.ts';
import type { AccountGuard } from '../../src/http/auth-guard.ts';
import { openTempHistory, type TempHistory } from '../history/temp-store.ts';

export const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
export const PROFILE = PROFILES.testnet;
export const DOMAIN = eip712Domain(PROFILE);
/** 2030-01-01T00:00:00Z. */
export const NOW = 1_893_456_000_000;
export const IN_ONE_HOUR = NOW + 3_600_000;
export const USD = 1_000_000n;

export interface Reply {
  status: number;
  text: string;
  headers: Headers;
  json(): any;
}

/** viem's local account: what a wallet library gives a client. */
export interface Wallet {
  address: `0x${string}`;
  signMessage(args: { message: string }): Promise<`0x${string}`>;
  signTypedData(args: never): Promise<`0x${string}`>;
}

export interface AccountServer {
  url: string;
  clock: { now: number };
  ledger: Ledger;
  delegations: DelegationStore;
  nonces: NonceStore;
  history: TempHistory;
  guard: AccountGuard;
  /** Every write the port received, in order. */
  writes: Array<{ kind: 'transfer' | 'setMargin' | 'changeDelegation'; write: TransferWrite | MarginWrite | DelegationWrite }>;
  request(method: string, path: string, options?: { token?: string; body?: unknown; authorization?: string }): Promise<Reply>;
  get(path: string, token?: string): Promise<Reply>;
  post(path: string, body: unknown, token?: string): Promise<Reply>;
  /** Logs the wallet in over HTTP (challenge, personal_sign, login) and returns its token. */
  login(wallet: Wallet): Promise<string>;
  /** A delegation applied directly to the store, as a journaled change would. */
  delegate(account: Address, subaccountIndex: number, delegate: Address, scopes: string): void;
  revoke(account: Address, subaccountIndex: number, delegate: Address): void;
}

/** uint64 fields as bigint for viem (uint32 stays a number). */
function forViem(message: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(message).map(([k, v]) => [k, typeof v === 'number' && !/subaccountIndex/.test(k) ? BigInt(v) : v]));
}

export function sign<T extends PrimaryType>(wallet: Wallet, primaryType: T, message: MessageOf[T]): Promise<`0x${string}`> {
  return wallet.signTypedData({ domain: DOMAIN, types: TYPES, primaryType, message: forViem(message) } as never);
}

function refusal(code: number, params?: Readonly<Record<string, string>>): WriteResult {
  return params === undefined ? { ok: false, code } : { ok: false, code, params };
}

export async function startAccountServer(): Promise<AccountServer> {
  const clock = { now: NOW };
  const now = () => clock.now;
  const ledger = new Ledger(markets, { faucet: true });
  const delegations = new DelegationStore();
  const nonces = new NonceStore();
  const state: AuthState = { nonces, delegations };
  const history = openTempHistory();
  const transfers = new TransferHistory(history.root);
  let transferId = 0;
  const login = new WalletLogin({
    challenge: { domain: 'testnet.perp.example', uri: PROFILE.baseUrl, chainId: PROFILE.chainId, now },
    token: { keys: [{ kid: 'k1', secret: new Uint8Array(32).fill(7) }], issuer: PROFILE.baseUrl, audience: 'perp-api', now },
  });
  const auth: AuthPort = { login, domain: DOMAIN, recover: typedRecoveryOf(inlineRecovery(nobleBackend)) };
  const accounts: AccountReadPort = { ledger, delegations, nonces };
  const writes: AccountServer['writes'] = [];

  const port: AccountWritePort = {
    async transfer(w) {
      writes.push({ kind: 'transfer', write: w });
      const admitted = admitSignedWrite(state, { action: 'transfer', accountFrom: w.accountFrom as Address, subaccountIndexFrom: w.subaccountIndexFrom, subaccountIndexTo: w.subaccountIndexTo, target: w.target as Address, signer: w.signer as Address, nonce: w.nonce, expiresAt: w.expiresAt }, clock.now);
      if (!admitted.ok) return refusal(admitted.code, admitted.params);
      const code = ledger.transfer(w.accountFrom, w.subaccountIndexFrom, w.accountTo, w.subaccountIndexTo, w.amount, clock.now);
      if (code !== LedgerCode.Ok) return refusal(code);
      history.root.transactionSync(() =>
        transfers.onTransfer({
          id: ++transferId,
          time: clock.now,
          fromOwner: ledger.findOwner(w.accountFrom, w.subaccountIndexFrom)!,
          toOwner: ledger.findOwner(w.accountTo, w.subaccountIndexTo)!,
          accountFrom: w.accountFrom,
          subaccountIndexFrom: w.subaccountIndexFrom,
          accountTo: w.accountTo,
          subaccountIndexTo: w.subaccountIndexTo,
          amount: w.amount,
        }),
      );
      return { ok: true, value: null };
    },
    async setMargin(w) {
      writes.push({ kind: 'setMargin', write: w });
      const admitted = admitSignedWrite(state, { action: 'marginUpdate', account: w.account as Address, subaccountIndex: w.subaccountIndex, signer: w.signer as Address, nonce: w.nonce, expiresAt: w.expiresAt }, clock.now);
      if (!admitted.ok) return refusal(admitted.code, admitted.params);
      const code = ledger.setMargin(w.account, w.subaccountIndex, w.marketIndex, w.isolated, w.margin, clock.now);
      return code === LedgerCode.Ok ? { ok: true, value: null } : refusal(code);
    },
    async changeDelegation(w) {
      writes.push({ kind: 'changeDelegation', write: w });
      const admitted = admitDelegationChange(state, w, w.signer as Address, clock.now);
      return admitted.ok ? { ok: true, value: null } : refusal(admitted.code, admitted.params);
    },
  };

  const options = { markets, clock: now, accounts, writes: port, auth, fills: history.reader, transfers };
  const guard = accountGuard(options);
  const routes: Route[] = [...Object.values(loginRoutes(auth, guard)), ...Object.values(accountRoutes(options, guard)), ...Object.values(docsRoutes(ENDPOINTS))];
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    routes,
    maxBodyBytes: 64 * 1024,
    shuttingDown: failure(GatewayCode.Overloaded, 'shutting down'),
    fallback: (req) => failure(GatewayCode.RouteNotFound, req.path),
    onHandlerError: (error) => {
      console.error(error);
      return failure(GatewayCode.Internal);
    },
  });
  after(() => server.close());
  const url = `http://127.0.0.1:${server.port}`;

  const request: AccountServer['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = {};
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    else if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    // No keep-alive (agent: false): the file ends as soon as its last test does.
    return new Promise<Reply>((resolve, reject) => {
      const req = httpRequest(url + path, { method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const replyHeaders = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') replyHeaders.set(k, v);
          resolve({ status: res.statusCode ?? 0, text, headers: replyHeaders, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  };

  return {
    url,
    clock,
    ledger,
    delegations,
    nonces,
    history,
    guard,
    writes,
    request,
    get: (path, token) => request('GET', path, { token }),
    post: (path, body, token) => request('POST', path, { token, body }),
    async login(wallet) {
      const challenge = await request('POST', '/auth/challenge', { body: { address: wallet.address } });
      if (challenge.status !== 200) throw new Error(`challenge: ${challenge.status} ${challenge.text}`);
      const { message } = challenge.json();
      const signature = await wallet.signMessage({ message });
      const issued = await request('POST', '/auth/login', { body: { message, signature } });
      if (issued.status !== 200) throw new Error(`login: ${issued.status} ${issued.text}`);
      return issued.json().token;
    },
    delegate(account, subaccountIndex, delegate, scopes) {
      const applied = delegations.apply({ account, subaccountIndex, delegate, scopes, action: 'add' }, account);
      if (!applied.ok) throw new Error(`delegate: ${applied.code}`);
    },
    revoke(account, subaccountIndex, delegate) {
      const applied = delegations.apply({ account, subaccountIndex, delegate, scopes: '', action: 'remove' }, account);
      if (!applied.ok) throw new Error(`revoke: ${applied.code}`);
    },
  };
}
