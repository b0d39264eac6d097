/**
 * What the black-box API tests (test/e2e/api-*.test.ts, test/behaviour/) share: assertions on the spec's field
 * types and error replies, and the signed account writes (Transfer, MarginUpdate, Delegation)
 * built with viem from the typed data GET /config publishes — exactly what a client does.
 */
import assert from 'node:assert/strict';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ApiClient, Reply, Trader } from './traders.ts';

export const BTC = 'BTC-USD-PERP';
export const ETH = 'ETH-USD-PERP';
export const SOL = 'SOL-USD-PERP';

/** A decimal string as the API writes it: optional minus, digits, optional fraction, no exponent. */
export const DECIMAL = /^-?\d+(\.\d+)?$/;
export const UNSIGNED_DECIMAL = /^\d+(\.\d+)?$/;
export const ADDRESS = /^0x[0-9a-f]{40}$/;
export const ORDER_ID = /^0x[0-9a-f]{16}$/;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A plain-text refusal with the spec's exact text. */
export function assertError(reply: Reply, status: number, text: string): void {
  assert.equal(reply.status, status, `expected ${status} ${JSON.stringify(text)}, got ${reply.status} ${JSON.stringify(reply.text)}`);
  assert.equal(reply.text, text);
  assert.match(reply.headers.get('content-type') ?? '', /^text\/plain/, `an error body is plain text (${text})`);
}

/** A 200 with a JSON body, returned parsed. */
export function ok<T = any>(reply: Reply): T {
  assert.equal(reply.status, 200, `expected 200, got ${reply.status} ${reply.text}`);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/json/, 'a success body is application/json');
  return reply.json<T>();
}

export function isInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/** A time in milliseconds close to now (the server runs on this machine's clock). */
export function assertMillisNow(v: unknown, field: string): void {
  assert.ok(isInteger(v), `${field} must be an integer, got ${JSON.stringify(v)}`);
  assert.ok(Math.abs((v as number) - Date.now()) < 120_000, `${field} must be milliseconds near now, got ${v}`);
}

/** A time in seconds close to now (public market data). */
export function assertSecondsNow(v: unknown, field: string): void {
  assert.ok(isInteger(v), `${field} must be an integer, got ${JSON.stringify(v)}`);
  assert.ok(Math.abs((v as number) - Date.now() / 1000) < 120, `${field} must be seconds near now, got ${v}`);
}

export function assertDecimal(v: unknown, field: string, pattern = DECIMAL): void {
  assert.equal(typeof v, 'string', `${field} must be a decimal string, got ${JSON.stringify(v)}`);
  assert.match(v as string, pattern, `${field} must be a decimal string without exponent, got ${v}`);
}

const ORDER_TYPES = ['unsupported', 'limit', 'twap', 'takeProfit', 'stopLoss', 'trailingStop', 'iceberg'];
const ORDER_STATUSES = ['new', 'partiallyFilled', 'filled', 'cancelled', 'expired', 'rejected', 'untriggered', 'triggered'];

/** Every field of the spec's Order, each of the spec's JSON type. */
export function assertOrderShape(o: any): void {
  const where = (field: string) => `order ${o?.orderId}: ${field}`;
  assert.equal(typeof o, 'object');
  assert.match(o.account, ADDRESS, where('account'));
  assert.ok(o.clientId === null || typeof o.clientId === 'string', where('clientId must be string or null'));
  assertMillisNow(o.createdAt, where('createdAt'));
  assert.ok(isInteger(o.expiresAt) && o.expiresAt >= 0, where('expiresAt must be an integer >= 0'));
  assert.equal(typeof o.flags, 'object', where('flags'));
  for (const flag of ['ioc', 'postOnly', 'reduceOnly']) assert.equal(typeof o.flags[flag], 'boolean', where(`flags.${flag}`));
  assert.ok(isInteger(o.flags.selfTradeExpire), where('flags.selfTradeExpire must be an integer'));
  assert.equal(typeof o.groupId, 'string', where('groupId'));
  assert.ok(isInteger(o.lastUpdateSequenceNumber), where('lastUpdateSequenceNumber must be an integer'));
  assert.ok(isInteger(o.nonce) && o.nonce >= 0, where('nonce must be an integer >= 0'));
  assert.equal(typeof o.ocoGroupId, 'string', where('ocoGroupId'));
  assert.match(o.orderId, ORDER_ID, where('orderId'));
  assert.ok(ORDER_TYPES.includes(o.orderType), where(`orderType ${o.orderType}`));
  assert.equal(typeof o.originator, 'string', where('originator'));
  assert.ok(isInteger(o.originatorFee) && o.originatorFee >= 0, where('originatorFee must be an integer >= 0'));
  assert.ok(o.parentOrderId === null || typeof o.parentOrderId === 'string', where('parentOrderId must be string or null'));
  assert.ok(o.period === null || (isInteger(o.period) && o.period >= 0), where('period must be an integer >= 0 or null'));
  assertDecimal(o.price, where('price'), UNSIGNED_DECIMAL);
  assertDecimal(o.quantity, where('quantity'));
  assert.equal(typeof o.reason, 'string', where('reason'));
  assertDecimal(o.remaining, where('remaining'), UNSIGNED_DECIMAL);
  assertDecimal(o.settled, where('settled'), UNSIGNED_DECIMAL);
  assert.ok(ORDER_STATUSES.includes(o.status), where(`status ${o.status}`));
  assert.ok(isInteger(o.subaccountIndex) && o.subaccountIndex >= 0, where('subaccountIndex must be an integer >= 0'));
  assert.equal(typeof o.symbol, 'string', where('symbol'));
  assert.ok(o.trailingPercent === null || typeof o.trailingPercent === 'string', where('trailingPercent must be string or null'));
  assert.ok(o.triggerPrice === null || typeof o.triggerPrice === 'string', where('triggerPrice must be string or null'));
  assertMillisNow(o.updatedAt, where('updatedAt'));
  assert.ok(o.updatedAt >= o.createdAt, where('updatedAt >= createdAt'));
}

// ── Signed account writes ────────────────────────────────────────────────────────────────

const configs = new WeakMap<ApiClient, Promise<any>>();

/** The EIP-712 section of GET /config (domain, types), as a client fetches it once. */
export async function typedData(ex: ApiClient): Promise<{ domain: any; types: any }> {
  if (!configs.has(ex)) configs.set(ex, ex.request('GET', '/config').then((r) => r.json().eip712));
  return configs.get(ex)!;
}

/** Signs one published primary type with viem: uint64 fields as bigint, uint32 as numbers. */
export async function signTyped(ex: ApiClient, wallet: PrivateKeyAccount, primaryType: 'Transfer' | 'MarginUpdate' | 'Delegation', message: Record<string, unknown>): Promise<`0x${string}`> {
  const { domain, types } = await typedData(ex);
  const fields: { name: string; type: string }[] = types[primaryType];
  const forViem = Object.fromEntries(fields.map((f) => [f.name, f.type === 'uint64' ? BigInt(message[f.name] as number) : message[f.name]]));
  return wallet.signTypedData({ domain, types: { [primaryType]: fields }, primaryType, message: forViem });
}

export const inOneHour = () => Date.now() + 3_600_000;

export interface TransferFields {
  accountTo: string;
  amount: string;
  subaccountIndexFrom?: number;
  subaccountIndexTo?: number;
  accountFrom?: string;
  target?: string;
  feedId?: string;
  nonce?: number;
  expiresAt?: number;
}

/** The signed POST /account/transfer body of `from` (signed by `signer`, default `from`'s wallet). */
export async function signedTransfer(from: Trader, f: TransferFields, signer: PrivateKeyAccount = from.wallet): Promise<Record<string, unknown>> {
  const message = {
    accountFrom: f.accountFrom ?? from.address,
    accountTo: f.accountTo,
    subaccountIndexFrom: f.subaccountIndexFrom ?? 0,
    subaccountIndexTo: f.subaccountIndexTo ?? 0,
    amount: f.amount,
    feedId: f.feedId ?? '0x01',
    nonce: f.nonce ?? from.nextNonce(),
    expiresAt: f.expiresAt ?? inOneHour(),
    target: f.target ?? f.accountFrom ?? from.address,
  };
  return { ...message, signatures: [await signTyped(from.ex, signer, 'Transfer', message)] };
}

export interface MarginFields {
  symbol: string;
  isolated: boolean;
  margin: string;
  account?: string;
  subaccountIndex?: number;
  nonce?: number;
  expiresAt?: number;
}

/** The signed POST /account/margin body for `account` (default the trader's own), signed by `signer`. */
export async function signedMarginUpdate(by: Trader, f: MarginFields, signer: PrivateKeyAccount = by.wallet): Promise<Record<string, unknown>> {
  const message = {
    account: f.account ?? by.address,
    subaccountIndex: f.subaccountIndex ?? 0,
    symbol: f.symbol,
    isolated: f.isolated,
    margin: f.margin,
    nonce: f.nonce ?? by.nextNonce(),
    expiresAt: f.expiresAt ?? inOneHour(),
  };
  return { ...message, signatures: [await signTyped(by.ex, signer, 'MarginUpdate', message)] };
}

/** The signed POST /account/delegates body: `owner` grants (`add`) or revokes (`remove`) `delegate`. */
export async function signedDelegation(
  owner: Trader,
  delegate: string,
  scopes: string,
  action: 'add' | 'remove' = 'add',
  subaccountIndex = 0,
  signer: PrivateKeyAccount = owner.wallet,
): Promise<Record<string, unknown>> {
  const message = { account: owner.address, subaccountIndex, delegate, scopes, action, nonce: owner.nextNonce(), expiresAt: inOneHour() };
  return { ...message, signatures: [await signTyped(owner.ex, signer, 'Delegation', message)] };
}

/** `owner` grants `delegate` the scopes on one subaccount through the API (asserts the null body). */
export async function delegate(owner: Trader, delegate: Trader, scopes: string, subaccountIndex = 0): Promise<void> {
  const r = await owner.send('POST', '/account/delegates', await signedDelegation(owner, delegate.address, scopes, 'add', subaccountIndex));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.text, 'null');
}

export async function revoke(owner: Trader, delegate: Trader, subaccountIndex = 0): Promise<void> {
  const r = await owner.send('POST', '/account/delegates', await signedDelegation(owner, delegate.address, '', 'remove', subaccountIndex));
  assert.equal(r.status, 200, r.text);
}

/** `account=…&subaccountIndex=…` of a trader's subaccount. */
export function sub(trader: Trader, subaccountIndex = 0): string {
  return `account=${trader.address}&subaccountIndex=${subaccountIndex}`;
}

