/**
 * The market page's recent trades (src/web/trades.ts): GET /trades first, the feed's trades in
 * front, newest first, at most `keep`; trades the feed sent while GET /trades was on its way are
 * shown once whether or not GET /trades already had them, and two equal trades stay two.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecentTrades, type Trade } from '../../src/web/trades.ts';

const trade = (price: string, time = 100, quantity = '1', side: Trade['side'] = 'buy'): Trade => ({ price, quantity, side, time });
const prices = (t: RecentTrades) => t.items.map((x) => x.price);

test('the feed puts its trades, oldest first in a message, in front of GET /trades, keeping the newest', () => {
  const trades = new RecentTrades(4);
  trades.load([trade('3'), trade('2'), trade('1')]);
  trades.add([trade('4'), trade('5')]);
  assert.deepEqual(prices(trades), ['5', '4', '3', '2']);
});

test('feed trades held during GET /trades are added once, equal trades each once', () => {
  const trades = new RecentTrades(10);
  trades.reset();
  // The feed sent 2, 3 and another 3 while GET /trades was on its way; history had 2 and one 3.
  trades.add([trade('2', 101), trade('3', 102), trade('3', 102)]);
  assert.deepEqual(prices(trades), [], 'held, not shown before GET /trades');
  trades.load([trade('3', 102), trade('2', 101), trade('1', 100)]);
  assert.deepEqual(prices(trades), ['3', '3', '2', '1']);
  trades.add([trade('4', 103)]);
  assert.deepEqual(prices(trades), ['4', '3', '3', '2', '1']);
});
