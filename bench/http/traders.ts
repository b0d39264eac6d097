/**
 * @module bench/http/traders
 *
 * What the benches and a scale test need beyond the load generator (bench/load/generator.ts,
 * which opens, funds and signs for bench:http, bench:feeds and bench:replication):
 * - `seedBook`: the resting book bench:http and bench:feeds measure against, placed by the
 *   generator's accounts.
 * - For test/e2e/crash-scale.test.ts, which sends batches of orders on 32 subaccounts to a server
 *   restarted on new ports (the harness's `Trader` follows it): wallets logged in and funded
 *   through the API (`Trader`, viem) and orders hashed with the exchange's own EIP-712 code and
 *   signed natively (the generator's `signDigest`); `checkSignerAgainstViem` proves on a sample
 *   that they are the very signature viem's `signTypedData` makes (RFC 6979 signatures are
 *   deterministic), so the bodies are what a real client sends.
 *
 * May import: test/e2e/harness, src/auth, src/client (types), bench/load/native-signer.
 */
import { generatePrivateKey } from 'viem/accounts';
import { Trader, type ApiClient, type OrderFields } from '../../test/e2e/harness.ts';
import type { ExchangeClient } from '../../src/client/index.ts';
import { orderMessage, typedDataDigest, type Eip712Domain, type OrderRequest } from '../../src/auth/typed-data.ts';
import { signDigest } from '../load/native-signer.ts';

export interface BenchTrader {
  trader: Trader;
  key: Uint8Array;
}

/** `count` wallets, logged in and funded with `amount` USD, `parallel` at a time. */
export async function openAccounts(client: ApiClient, count: number, amount: string, parallel = 4): Promise<BenchTrader[]> {
  const out: BenchTrader[] = [];
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, async () => {
      const hex = generatePrivateKey();
      const trader = new Trader(client, hex);
      await trader.login();
      await trader.fund(amount);
      return { trader, key: Uint8Array.from(Buffer.from(hex.slice(2), 'hex')) };
    });
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

export interface SignedOrder {
  /** The bearer token of the order's trader. */
  token: string;
  /** The POST /account/order body, as JSON text. */
  body: string;
}

/** One signed order of `bt` with its next nonce. */
export function signOrder(domain: Eip712Domain, bt: BenchTrader, fields: OrderFields): SignedOrder {
  const body: OrderRequest = bt.trader.orderBody(fields);
  const message = orderMessage(body);
  if (!message.ok) throw new Error(`order message refused: ${JSON.stringify(message)}`);
  const digest = typedDataDigest(domain, 'Order', message.value);
  if (!digest.ok) throw new Error(`order digest refused: ${JSON.stringify(digest)}`);
  return { token: bt.trader.token, body: JSON.stringify({ ...body, signatures: [signDigest(digest.value, bt.key)] }) };
}

/** Throws unless the fast signer and viem (with the types from GET /config) sign `fields` alike. */
export async function checkSignerAgainstViem(domain: Eip712Domain, bt: BenchTrader, fields: OrderFields): Promise<void> {
  const nonce = bt.trader.nextNonce();
  const ours = signOrder(domain, bt, { ...fields, nonce });
  const viem = await bt.trader.signedOrder({ ...fields, nonce });
  if (JSON.stringify(viem) !== ours.body) throw new Error(`bench signer disagrees with viem:\n${ours.body}\n${JSON.stringify(viem)}`);
}

/**
 * A resting book around 95,000: `levels` bids from 94,900 down and asks from 95,100 up, 10 apart,
 * placed through the API by the first ten buyers (odd accounts) and sellers (even accounts) of
 * the load generator's `accounts`. Throws on a refusal.
 */
export async function seedBook(accounts: readonly ExchangeClient[], levels: number): Promise<number> {
  const place = (k: number, side: 0 | 1, price: number, quantity: string) => accounts[2 * (k % 10) + side].placeOrder({ symbol: 'BTC-USD-PERP', price: String(price), quantity });
  const seeded = await Promise.all(
    Array.from({ length: levels }, (_, k) => [place(k, 1, 94_900 - 10 * k, (0.001 * (1 + (k % 7))).toFixed(3)), place(k, 0, 95_100 + 10 * k, (-0.001 * (1 + (k % 5))).toFixed(3))]).flat(),
  );
  return seeded.length;
}
