/**
 * A first client, with the exchange's client (`perp-exchange/client`, src/client): log in, take
 * test collateral from the faucet, place an order, list it, cancel it.
 * `node --import tsx examples/first-order.ts [URL]` (default $EXCHANGE_URL, else
 * http://localhost:8080); PRIVATE_KEY=0x… to use your wallet, else a new one.
 */
import { pathToFileURL } from 'node:url';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient, type Market } from 'perp-exchange/client';

/** A logged-in client of the wallet `key`. */
export async function connect(url: string, key = (process.env.PRIVATE_KEY as `0x${string}` | undefined) ?? generatePrivateKey()): Promise<ExchangeClient> {
  const client = new ExchangeClient({ url, wallet: privateKeyToAccount(key) });
  await client.login(); // signs the Sign-In with Ethereum challenge; the token is renewed when due
  return client;
}

/** The market's index price moved by `factor`, on its tick. */
export async function priceNear(client: ExchangeClient, market: Market, factor: number): Promise<string> {
  const { prices } = await client.prices({ symbol: market.symbol });
  const tick = Number(market.tickSize);
  return (Math.round((Number(prices[0].indexPrice) * factor) / tick) * tick).toFixed(market.tickSize.split('.')[1]?.length ?? 0);
}

async function main(url: string) {
  const me = await connect(url);
  console.log('logged in as', me.address);
  await me.faucet();
  const [market] = (await me.config()).markets;
  // Signed with GET /config's EIP-712 types by the published rules; the nonce is the client's.
  const placed = await me.placeOrder({ symbol: market.symbol, price: await priceNear(me, market, 0.9), quantity: market.minSize, postOnly: true });
  console.log('placed', placed.orderId, placed.symbol, placed.quantity, '@', placed.price, placed.status);
  const { bids } = await me.orders({ status: 'open' });
  console.log('open orders', bids.map((o) => o.orderId).join(' '));
  const cancelled = await me.cancelOrder({ orderId: placed.orderId });
  console.log('cancelled', cancelled.orderId, cancelled.status);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv[2] ?? process.env.EXCHANGE_URL ?? 'http://localhost:8080');
