/**
 * A first client, with viem and fetch only: log in, take test collateral from the faucet, place
 * an order, list it, cancel it. `node --import tsx examples/first-order.ts [URL]` (default
 * $EXCHANGE_URL, else http://localhost:8080); PRIVATE_KEY=0x… to use your wallet, else a new one.
 */
import { pathToFileURL } from 'node:url';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

type Flags = { ioc: boolean; postOnly: boolean; reduceOnly: boolean };

/** A logged-in wallet: `call` sends JSON with its token, `order` signs and places a limit order. */
export async function connect(url: string, key = (process.env.PRIVATE_KEY as `0x${string}` | undefined) ?? generatePrivateKey()) {
  const wallet = privateKeyToAccount(key);
  let token = '';
  let nonce = Date.now();
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text} ${res.headers.get('x-signed-message') ?? ''}`);
    return JSON.parse(text);
  };
  const config = await call('GET', '/config'); // the EIP-712 domain and types, the markets
  const { message } = await call('POST', '/auth/challenge', { address: wallet.address });
  ({ token } = await call('POST', '/auth/login', { message, signature: await wallet.signMessage({ message }) }));
  const order = async (symbol: string, price: string, quantity: string, flags: Flags = { ioc: false, postOnly: false, reduceOnly: false }) => {
    const body = { account: wallet.address, subaccountIndex: 0, symbol, orderType: 'limit', price, quantity, nonce: ++nonce, expiresAt: 0, flags, originator: `0x${'0'.repeat(40)}`, originatorFee: 0 };
    // What is signed (GET /config `signing`): the flags top-level, absent strings "", period 0.
    const signed = { ...body, ...flags, clientId: '', triggerPrice: '', parentOrderId: '', period: 0, trailingPercent: '' };
    const signature = await wallet.signTypedData({ domain: config.eip712.domain, types: { Order: config.eip712.types.Order }, primaryType: 'Order', message: signed });
    const [placed] = await call('POST', '/account/order', { ...body, signatures: [signature] });
    return placed;
  };
  /** The market's index price moved by `factor`, on its tick. */
  const priceNear = async (market: { symbol: string; tickSize: string }, factor: number) => {
    const { prices } = await call('GET', `/price?symbol=${market.symbol}`);
    const tick = Number(market.tickSize);
    return (Math.round((Number(prices[0].indexPrice) * factor) / tick) * tick).toFixed(market.tickSize.split('.')[1]?.length ?? 0);
  };
  return { wallet, config, call, order, priceNear, subaccount: `account=${wallet.address}&subaccountIndex=0` };
}

async function main(url: string) {
  const me = await connect(url);
  console.log('logged in as', me.wallet.address);
  await me.call('POST', '/faucet', { account: me.wallet.address });
  const market = me.config.markets[0];
  const placed = await me.order(market.symbol, await me.priceNear(market, 0.9), market.minSize, { ioc: false, postOnly: true, reduceOnly: false });
  console.log('placed', placed.orderId, placed.symbol, placed.quantity, '@', placed.price, placed.status);
  const { bids } = await me.call('GET', `/account/orders?${me.subaccount}&status=open`);
  console.log('open orders', bids.map((o: { orderId: string }) => o.orderId).join(' '));
  const cancelled = await me.call('DELETE', `/account/order?orderId=${placed.orderId}`);
  console.log('cancelled', cancelled.orderId, cancelled.status);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv[2] ?? process.env.EXCHANGE_URL ?? 'http://localhost:8080');
