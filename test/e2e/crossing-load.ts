/**
 * Crossing order load for the restart tests that need a journal of tens of thousands of records
 * quickly: two accounts, `pipelines` subaccounts each, send signed batches of 50 orders
 * (POST /account/orders) — one account rests, the other trades through what rests, sides
 * swapping each phase, as test/e2e/crash-scale.test.ts does. Every acknowledged order is
 * reported to `onAck` with what its reply said.
 */
import { openAccounts, signOrder, type BenchTrader } from '../../bench/http/traders.ts';
import { eip712Domain } from '../../src/auth/typed-data.ts';
import { PROFILES } from '../../src/config/profile.ts';
import type { ApiClient } from './harness.ts';

export const LOAD_MARKETS = [
  { symbol: 'BTC-USD-PERP', price: 95_000, lot: 0.0001, decimals: 4 },
  { symbol: 'ETH-USD-PERP', price: 3_500, lot: 0.001, decimals: 3 },
];
const domain = eip712Domain(PROFILES.testnet);

export interface AckedOrder {
  account: number;
  subaccountIndex: number;
  orderId: string;
  clientId: string;
  /** Lots filled when the reply was sent. */
  settled: number;
}

/** Two funded accounts with `pipelines` funded subaccounts each. */
export async function loadAccounts(client: ApiClient, pipelines: number): Promise<BenchTrader[]> {
  const accounts = await openAccounts(client, 2, '50000000');
  for (const a of accounts) for (let sub = 1; sub < pipelines; sub++) await a.trader.fund('50000000', sub);
  return accounts;
}

let clientCounter = 0;

/** Crossing load until `enough()` or the server stops answering (then it returns: what was not acknowledged may or may not have happened). */
export async function crossingLoad(client: ApiClient, accounts: BenchTrader[], pipelines: number, rand: () => number, enough: () => boolean, onAck: (order: AckedOrder) => void = () => {}): Promise<void> {
  const send = async (account: number, subaccountIndex: number, orders: { symbol: string; price: number; lots: number; lot: number; decimals: number; buy: boolean }[]) => {
    const bt = accounts[account];
    const signed = orders.map((o) => {
      const clientId = `c${process.pid}-${++clientCounter}`;
      return { clientId, body: signOrder(domain, bt, { symbol: o.symbol, price: String(o.price), quantity: `${o.buy ? '' : '-'}${(o.lots * o.lot).toFixed(o.decimals)}`, clientId, subaccountIndex }).body };
    });
    const reply = await client.request('POST', '/account/orders', `{"orders":[${signed.map((s) => s.body).join(',')}]}`, { ...bt.trader.auth(), 'content-type': 'application/json' });
    if (reply.status !== 200) return;
    const placed: { orderId: string; clientId: string; settled: string }[] = reply.json().orders;
    placed.forEach((o, i) => onAck({ account, subaccountIndex, orderId: o.orderId, clientId: o.clientId, settled: Math.round(Number(o.settled) / orders[i].lot) }));
  };
  let alive = true;
  for (let phase = 0; alive && !enough(); phase++) {
    const maker = phase % 2;
    const buy = rand() < 0.5;
    await Promise.all(
      Array.from({ length: pipelines }, async (_, sub) => {
        const m = LOAD_MARKETS[sub % LOAD_MARKETS.length];
        const makers = Array.from({ length: 50 }, () => {
          const far = rand() < 0.1;
          const offset = far ? Math.round(m.price / 10) : Math.floor(rand() * 20);
          return { ...m, price: buy ? m.price - offset : m.price + offset, lots: 1 + Math.floor(rand() * 5), buy, far };
        });
        const crossing = makers.filter((o) => !o.far);
        const takers = Array.from({ length: Math.ceil(crossing.length / 3) }, (_, i) => ({ ...m, price: buy ? m.price - 20 : m.price + 20, lots: crossing.slice(3 * i, 3 * i + 3).reduce((s, o) => s + o.lots, 0), buy: !buy }));
        try {
          await send(maker, sub, makers);
          await send(1 - maker, sub, takers);
        } catch {
          alive = false;
        }
      }),
    );
  }
}
