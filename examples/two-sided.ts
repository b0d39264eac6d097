/**
 * Two wallets make trades: a maker rests sell orders around the index price, a taker buys them
 * with immediate-or-cancel orders; both then read their fills and positions.
 * `node --import tsx examples/two-sided.ts [URL] [TRADES]` (default $EXCHANGE_URL, else
 * http://localhost:8080; 3 trades). MAKER_KEY / TAKER_KEY=0x… to use your wallets.
 * `connect` and `priceNear` are first-order.ts's.
 */
import { connect, priceNear } from './first-order.ts';

const url = process.argv[2] ?? process.env.EXCHANGE_URL ?? 'http://localhost:8080';
const trades = Number(process.argv[3] ?? 3);
const asKey = (key: string | undefined) => key as `0x${string}` | undefined;
const maker = await connect(url, asKey(process.env.MAKER_KEY));
const taker = await connect(url, asKey(process.env.TAKER_KEY));
for (const wallet of [maker, taker]) await wallet.faucet();

const [market] = (await maker.config()).markets;
for (let i = 0; i < trades; i++) {
  // A few ticks apart each time, so each trade is at its own price.
  const price = await priceNear(maker, market, 1 + i / 1000);
  const ask = await maker.placeOrder({ symbol: market.symbol, price, quantity: `-${market.minSize}`, postOnly: true });
  const bid = await taker.placeOrder({ symbol: market.symbol, price, quantity: market.minSize, ioc: true });
  // On a shared exchange a better ask may rest below ours, and the taker buys that one instead:
  // say what the maker's ask did, and take it off the book if it is still there.
  let made = await maker.order({ orderId: ask.orderId });
  if (made.status === 'new' || made.status === 'partiallyFilled') made = await maker.cancelOrder({ orderId: ask.orderId });
  const makerSide = made.status === 'filled' ? `maker ${ask.orderId} sold` : `maker ${ask.orderId} sold ${made.settled} (a better ask was bought first), then ${made.status}`;
  console.log(`trade ${i + 1}: ${makerSide}, taker ${bid.orderId} bought ${market.minSize} @ up to ${price}: taker order ${bid.status}`);
}

for (const [name, wallet] of [['maker', maker], ['taker', taker]] as const) {
  const fills = await wallet.fills();
  const { positions } = await wallet.positions();
  const position = positions.find((p) => p.symbol === market.symbol);
  console.log(`${name} ${wallet.address}: ${fills.length} fills, position ${position?.quantity ?? '0'} ${market.symbol}`);
}
