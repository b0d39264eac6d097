/**
 * Open orders per subaccount are bounded (issue 13, lock-out). Every open order — resting,
 * untriggered (a TP/SL holds no margin until it fires) or a pending TWAP/iceberg child — costs
 * the exchange memory for as long as it is open, and cancel-all and the order list walk them.
 * Resting at one tick of the minimum size holds two base units of margin (BTC: 0.00001 USD of
 * notional, IM and fee each rounded up to a unit), so 1 USD kept 500,000 orders open, and
 * untriggered orders cost nothing at all: at 100 orders a batch and 200 requests a second, one
 * account filled memory for everybody in minutes. A submission that would take a subaccount past
 * `maxOpenOrders` is refused whole (journaled as rejected, its nonces spent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { ExchangeCode } from '../../src/app/codes.ts';
import { DEFAULT_ACCOUNT_LIMITS } from '../../src/app/account-limits.ts';
import { Exchange } from '../../src/app/exchange.ts';
import { NO_ROUTER } from '../../src/app/ports.ts';
import type { Address } from '../../src/types/address.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
const ALICE: Address = `0x${'a'.repeat(40)}`;
const ZERO: Address = `0x${'0'.repeat(40)}`;

function exchange(maxOpenOrders: number) {
  const ex = new Exchange(markets, NO_ROUTER, {}, { ledger: { faucet: true }, accountLimits: { ...DEFAULT_ACCOUNT_LIMITS, maxOpenOrders } });
  for (const sub of [0, 1]) assert.equal(ex.execute({ kind: CommandKind.Faucet, time: 1, account: ALICE, subaccountIndex: sub, amount: 1_000_000n }).code, 0);
  let nonce = 0;
  const order = (subaccountIndex: number, orderType = 'limit') => ({
    account: ALICE, subaccountIndex, market: 0, orderType, side: 1 as const, price: 1, quantity: 1, flags: 0, expiresAt: 0,
    nonce: ++nonce, clientId: null, originator: ZERO, originatorFee: 0,
    triggerPrice: orderType === 'limit' ? null : 900_000, parentOrderId: null, period: null, trailingPercent: null, signer: ALICE, signature: '0x',
  });
  const place = (subaccountIndex = 0, orderType = 'limit') => ex.execute({ kind: CommandKind.SubmitOrder, time: 2, ...order(subaccountIndex, orderType) } as Command);
  const slices = (n: number) => ex.execute({ kind: CommandKind.SubmitSlices, time: 2, orderType: 'iceberg', orders: Array.from({ length: n }, () => ({ ...order(0), orderType: 'iceberg' })) } as Command);
  return { ex, place, slices };
}

test('a subaccount holds at most maxOpenOrders open orders; the next one is refused, journaled, and another subaccount is not affected', () => {
  const { ex, place } = exchange(20);
  for (let i = 0; i < 20; i++) assert.equal(place().code, 0, `order ${i + 1}`);
  const refused = place();
  assert.equal(refused.code, ExchangeCode.TooManyOpenOrders);
  assert.deepEqual(refused.params, { max: '20' });
  assert.equal(refused.changed, true, 'its nonce is spent: journaled as rejected');
  assert.equal(ex.orders.get(refused.orderId!), undefined, 'not held');
  assert.equal(place(1).code, 0, 'subaccount 1 has its own bound');
});

test('untriggered conditional orders count, though they hold no margin', () => {
  const { place } = exchange(5);
  for (let i = 0; i < 5; i++) assert.equal(place(0, 'takeProfit').code, 0);
  assert.equal(place(0, 'takeProfit').code, ExchangeCode.TooManyOpenOrders);
  assert.equal(place(0).code, ExchangeCode.TooManyOpenOrders);
});

test('a batch that would pass the bound is refused whole', () => {
  const { ex, place, slices } = exchange(10);
  for (let i = 0; i < 5; i++) assert.equal(place().code, 0);
  const batch = slices(6);
  assert.equal(batch.code, ExchangeCode.TooManyOpenOrders);
  assert.ok(batch.orderIds!.every((id) => ex.orders.get(id) === undefined));
  assert.equal(slices(5).code, 0, 'five more fit');
});
