/**
 * @module bench/http/traders
 *
 * The traders of bench/http.bench.ts and bench/feeds.bench.ts: wallets that log in and are funded through the API
 * (test/e2e/harness.ts `Trader`, viem), and a fast order signer for the thousands of orders the
 * bench pre-signs. The fast signer hashes with the exchange's own EIP-712 code and signs with
 * libsecp256k1 (noble where the binding does not load); `checkSignerAgainstViem` proves on a
 * sample that it produces the very signature viem's `signTypedData` does (RFC 6979 signatures are
 * deterministic), so the bodies are what a real client sends.
 *
 * Public routes (login, deposit) are budgeted per source address (200/s): setup requests are
 * paced under that budget. May import: test/e2e/harness, src/auth, @noble/curves, secp256k1.
 */
import { createRequire } from 'node:module';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { generatePrivateKey } from 'viem/accounts';
import { apiClient, Trader, type ApiClient, type OrderFields } from '../../test/e2e/harness.ts';
import type { ExchangeClient } from '../../src/client/index.ts';
import { bytesToHex } from '../../src/auth/address.ts';
import { orderMessage, typedDataDigest, type Eip712Domain, type OrderMessage, type OrderRequest } from '../../src/auth/typed-data.ts';

/** The part of the `secp256k1` package's API used here (it ships no types). */
interface NativeSigner {
  ecdsaSign(digest: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadNativeSigner(): NativeSigner | undefined {
  try {
    // `secp256k1/bindings` is the N-API build only (the package root falls back to elliptic).
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSigner;
  } catch {
    return undefined;
  }
}

const native = loadNativeSigner();
export const signerBackend = native === undefined ? 'noble' : 'native';

/** A 65-byte Ethereum signature `r ‖ s ‖ v` (v = 27 + recovery id) as 0x-hex. */
function sign(digest: Uint8Array, key: Uint8Array): string {
  if (native !== undefined) {
    const { signature, recid } = native.ecdsaSign(digest, key);
    return `0x${bytesToHex(signature)}${(27 + recid).toString(16)}`;
  }
  const recovered = secp256k1.sign(digest, key, { prehash: false, format: 'recovered' });
  return `0x${bytesToHex(recovered.subarray(1))}${(27 + recovered[0]).toString(16)}`;
}

/** An `ApiClient` that sends at most `perSecond` requests per second (in call order). */
export function pacedClient(url: string, perSecond: number): ApiClient {
  const inner = apiClient(url);
  const gap = 1000 / perSecond;
  let next = 0;
  const turn = async (): Promise<void> => {
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + gap;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  };
  return {
    url,
    request: async (method, path, body, headers) => {
      await turn();
      return inner.request(method, path, body, headers);
    },
    operator: async (method, path, body) => {
      await turn();
      return inner.operator(method, path, body);
    },
  };
}

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
  /** The EIP-712 message the body maps to, and its digest. */
  message: OrderMessage;
  digest: Uint8Array;
  signature: string;
}

/** One signed order of `bt` with its next nonce. */
export function signOrder(domain: Eip712Domain, bt: BenchTrader, fields: OrderFields): SignedOrder {
  const body: OrderRequest = bt.trader.orderBody(fields);
  const message = orderMessage(body);
  if (!message.ok) throw new Error(`order message refused: ${JSON.stringify(message)}`);
  const digest = typedDataDigest(domain, 'Order', message.value);
  if (!digest.ok) throw new Error(`order digest refused: ${JSON.stringify(digest)}`);
  const signature = sign(digest.value, bt.key);
  return { token: bt.trader.token, body: JSON.stringify({ ...body, signatures: [signature] }), message: message.value, digest: digest.value, signature };
}

/** Throws unless the fast signer and viem (with the types from GET /config) sign `fields` alike. */
export async function checkSignerAgainstViem(domain: Eip712Domain, bt: BenchTrader, fields: OrderFields): Promise<void> {
  const nonce = bt.trader.nextNonce();
  const ours = signOrder(domain, bt, { ...fields, nonce });
  const viem = await bt.trader.signedOrder({ ...fields, nonce });
  if (JSON.stringify(viem) !== ours.body) throw new Error(`bench signer disagrees with viem:\n${ours.body}\n${JSON.stringify(viem)}`);
}

/**
 * `count` crossing orders at 95,000: order i belongs to pair i >> 1, a seller's ask of 0.001 then
 * a buyer's bid of 0.001, the accounts rotating every pair (half the orders rest, half fill them).
 */
export function signCrossingOrders(domain: Eip712Domain, sellers: readonly BenchTrader[], buyers: readonly BenchTrader[], count: number): SignedOrder[] {
  return Array.from({ length: count }, (_, i) => {
    const pair = i >> 1;
    const trader = (i & 1) === 0 ? sellers[pair % sellers.length] : buyers[pair % buyers.length];
    return signOrder(domain, trader, { price: '95000', quantity: (i & 1) === 0 ? '-0.001' : '0.001' });
  });
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
