import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { Side } from '../../src/engine/types.ts';
import { MarketLink } from '../../src/transport/market-link.ts';
import { doneCode, recordKind } from '../../src/transport/codec.ts';
import { RecordKind } from '../../src/transport/layout.ts';
import { accountNo, marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));

test('commands beyond the ring wait in order and all reach the market thread', async () => {
  const results: number[] = [];
  let placed = 0;
  const link = new MarketLink(markets.slice(0, 1), new Map(), (view, _bytes, offset) => {
    if (recordKind(view, offset) === RecordKind.Done) results.push(doneCode(view, offset));
  }, () => {});
  // 10,000 commands in one synchronous burst: more than the 4,096-slot ring holds.
  for (let i = 1; i <= 10_000; i++) {
    link.place(marketNo(0), { orderId: orderNo(i), owner: ownerNo(1 + (i % 7)), account: accountNo(1 + (i % 7)), side: Side.Buy, price: 1_000 + (i % 50), quantity: 1, flags: 0, expiresAt: 0, clientId: null, position: 0, time: i });
    placed++;
  }
  assert.equal(link.hasRoom(1), false, 'waiting commands mean no room for new writes');
  while (results.length < placed) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(results.length, 10_000);
  assert.ok(results.every((code) => code === 0), 'every order was accepted, in order');
  assert.equal(link.hasRoom(1), true);
  const [book] = await link.snapshots();
  assert.equal(book.orders.length, 10_000);
  await link.close();
});
