/**
 * Two wallets make trades: a maker rests sell orders around the index price, a taker buys them
 * with immediate-or-cancel orders; both then read their fills and positions.
 * `node --import tsx examples/two-sided.ts [URL] [TRADES]` (default $EXCHANGE_URL, else
 * http://localhost:8080; 3 trades). MAKER_KEY / TAKER_KEY=0x… to use your wallets.
 * The client is first-order.ts's `connect`.
 */
import { connect } from './first-order.ts';

const url = process.argv[2] ?? process.env.EXCHANGE_URL ?? 'http://localhost:8080';
const trades = Number(process.argv[3] ?? 3);
const asKey = (key: string | undefined) => key as `0x${string}` | undefined;
const maker = await connect(url, asKey(process.env.MAKER_KEY));
const taker = await connect(url, asKey(process.env.TAKER_KEY));
for (const wallet of [maker, taker]) await wallet.call('POST', '/faucet', { account: wallet.wallet.address });

const market = maker.config.markets[0];
for (let i = 0; i < trades; i++) {
  // A few ticks apart each time, so each trade is at its own price.
  const price = await maker.priceNear(market, 1 + i / 1000);
  const ask = await maker.order(market.symbol, price, `-${market.minSize}`, { ioc: false, postOnly: true, reduceOnly: false });
  const bid = await taker.order(market.symbol, price, market.minSize, { ioc: true, postOnly: false, reduceOnly: false });
  console.log(`trade ${i + 1}: maker ${ask.orderId} sold, taker ${bid.orderId} bought ${market.minSize} @ ${price}: taker order ${bid.status}`);
}

for (const [name, wallet] of [['maker', maker], ['taker', taker]] as const) {
  const fills = await wallet.call('GET', `/account/fills?${wallet.subaccount}`);
  const { positions } = await wallet.call('GET', `/account/positions?${wallet.subaccount}`);
  const position = positions.find((p: { symbol: string }) => p.symbol === market.symbol);
  console.log(`${name} ${wallet.wallet.address}: ${fills.length} fills, position ${position?.quantity ?? '0'} ${market.symbol}`);
}
