/**
 * `npm run demo` gives a newcomer a live exchange within seconds: started on a free port and a
 * temporary data directory, every market soon has bids and asks (the market maker's ladder) and
 * trades (the takers'), and candles; SIGTERM then stops it cleanly (exit code 0).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExchangeClient } from '../../src/client/index.ts';
import { startDemo } from './demo-process.ts';

test('the demo quotes both sides of every market, trades in each, and stops cleanly', async () => {
  const demo = await startDemo();
  try {
    const client = new ExchangeClient({ url: demo.url });
    const { markets } = await client.markets();
    const lively = async (symbol: string) => {
      const [book, trades, candles] = await Promise.all([client.book(symbol), client.trades(symbol), client.candles(symbol)]);
      return book.bids.length > 0 && book.asks.length > 0 && trades.length > 0 && candles.length > 0;
    };
    const deadline = Date.now() + 60_000;
    let waiting = markets.map((m) => m.symbol);
    while (waiting.length > 0 && Date.now() < deadline) {
      const states = await Promise.all(waiting.map(lively));
      waiting = waiting.filter((_, i) => !states[i]);
      if (waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.deepEqual(waiting, [], `markets without a two-sided book, a trade and a candle after 60 s:\n${demo.output()}`);
  } finally {
    assert.equal(await demo.stop(), 'exit code 0', demo.output());
  }
});
