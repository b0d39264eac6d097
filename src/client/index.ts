/**
 * @module client
 *
 * The exchange's TypeScript client, exported as `perp-exchange/client`:
 *
 *   import { ExchangeClient } from 'perp-exchange/client';
 *   import { privateKeyToAccount } from 'viem/accounts';
 *   const client = new ExchangeClient({ url: 'http://localhost:8080', wallet: privateKeyToAccount(key) });
 *   await client.login();
 *   await client.faucet();
 *   const order = await client.placeOrder({ symbol: 'BTC-USD-PERP', price: '95000', quantity: '0.001' });
 *
 * One method per REST route (./routes: the route table, types derived from the server's
 * schemas), login with token renewal, EIP-712 signing with any viem account (./signing),
 * nonces per subaccount (./nonces), feeds that reconnect and resume (./feeds), and errors as
 * `ExchangeError { status, message, headers }` (./errors). Runs in Node 20+ and browsers.
 *
 * May import: viem, ws, json-schema-to-ts, http/schemas.
 */
export { ExchangeClient, type ClientOptions, type OrderInput, type Query, type Session, type SignedOrder } from './client.ts';
export { ExchangeError } from './errors.ts';
export { Feed, accountChannel, type FeedMessage, type FeedOptions, type WebSocketFactory, type WebSocketLike } from './feeds.ts';
export { Nonces } from './nonces.ts';
export { ROUTES, type Level, type Market, type Order, type Position, type ResponseOf, type RouteName } from './routes.ts';
export { onTick, sizes } from './ticks.ts';
export { orderMessage, signerOf, type OrderBody, type Signer, type Wallet } from './signing.ts';
