/**
 * Crossing order load for the restart tests that need a journal of tens of thousands of records
 * quickly (crash-scale, restart-chaos, history-rebuild-crash, copied-while-running): two
 * accounts, `pipelines` subaccounts each, send signed batches of 50 orders
 * (POST /account/orders) — one account rests, the other trades through what rests, sides
 * swapping each phase. Every acknowledged order is reported to `onAck` with what its reply
 * said; `checkAcknowledged` checks them against a restarted server.
 */
import assert from 'node:assert/strict';
import { openAccounts, signOrder, type BenchTrader } from '../../bench/http/traders.ts';
import { eip712Domain } from '../../src/auth/typed-data.ts';
import { PROFILES } from '../../src/config/profile.ts';
import { withinBudget, type ApiClient } from './harness.ts';

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

/**
 * Crossing load until `enough()` or the server stops answering (then it returns: what was not
 * acknowledged may or may not have happened). `onRefused` hears how many orders of a batch were
 * not placed. A reply that breaks a promise (a placed order under another clientId) fails the test.
 */
export async function crossingLoad(
  client: ApiClient,
  accounts: BenchTrader[],
  pipelines: number,
  rand: () => number,
  enough: () => boolean,
  onAck: (order: AckedOrder) => void = () => {},
  onRefused: (orders: number) => void = () => {},
): Promise<void> {
  const send = async (account: number, subaccountIndex: number, orders: { symbol: string; price: number; lots: number; lot: number; decimals: number; buy: boolean }[]) => {
    const bt = accounts[account];
    const signed = orders.map((o) => {
      const clientId = `c${process.pid}-${++clientCounter}`;
      return { clientId, body: signOrder(domain, bt, { symbol: o.symbol, price: String(o.price), quantity: `${o.buy ? '' : '-'}${(o.lots * o.lot).toFixed(o.decimals)}`, clientId, subaccountIndex }).body };
    });
    const reply = await client.request('POST', '/account/orders', `{"orders":[${signed.map((s) => s.body).join(',')}]}`, { ...bt.trader.auth(), 'content-type': 'application/json' });
    if (reply.status !== 200) {
      onRefused(orders.length);
      return;
    }
    const placed: { orderId: string; clientId: string; settled: string }[] = reply.json().orders;
    placed.forEach((o, i) => {
      assert.equal(o.clientId, signed[i].clientId);
      onAck({ account, subaccountIndex, orderId: o.orderId, clientId: o.clientId, settled: Math.round(Number(o.settled) / orders[i].lot) });
    });
    onRefused(orders.length - placed.length);
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
        // The taker takes as much as rests near the market, at the far end of it, each of its
        // orders as much as three makers (so it fills against several).
        const takers = Array.from({ length: Math.ceil(crossing.length / 3) }, (_, i) => ({ ...m, price: buy ? m.price - 20 : m.price + 20, lots: crossing.slice(3 * i, 3 * i + 3).reduce((s, o) => s + o.lots, 0), buy: !buy }));
        try {
          await send(maker, sub, makers);
          await send(1 - maker, sub, takers);
        } catch (error) {
          // A reply that breaks a promise is the test's verdict, not a dead server.
          if (error instanceof assert.AssertionError) throw error;
          alive = false;
        }
      }),
    );
  }
}

/** An order as GET /account/orders lists it (the fields the checks read). */
interface ListedOrder {
  orderId: string;
  clientId: string;
  settled: string;
  createdAt: number;
}

/**
 * Every acknowledged order is on the server `client` talks to, with its clientId and at least the
 * lots its reply reported settled; no clientId is listed under two orderIds. The orders are
 * listed per subaccount, newest first, 500 at a time, each page before the oldest createdAt of
 * the last; one beyond a page in that millisecond is read alone. With `fills`, every order's
 * fills in GET /account/fills must add up to its `settled`. Returns how many were read alone.
 */
export async function checkAcknowledged(
  client: ApiClient,
  accounts: BenchTrader[],
  pipelines: number,
  acked: Iterable<AckedOrder>,
  round: string,
  { fills = false }: { fills?: boolean } = {},
): Promise<number> {
  const seen = new Map<string, ListedOrder>();
  const byClientId = new Map<string, string>();
  const filledBy = new Map<string, number>();
  for (const bt of accounts) {
    for (let sub = 0; sub < pipelines; sub++) {
      let createdTo: number | undefined;
      for (;;) {
        const window = createdTo === undefined ? '' : `&createdTo=${createdTo}`;
        const r = await withinBudget(() => client.request('GET', `/account/orders?account=${bt.trader.address}&subaccountIndex=${sub}&limit=500${window}`, undefined, bt.trader.auth()));
        assert.equal(r.status, 200, `${round}: listing orders: ${r.text}`);
        const page: ListedOrder[] = [...r.json().asks, ...r.json().bids];
        for (const o of page) {
          // Exactly once: an order's clientId is never listed under a second orderId.
          const other = byClientId.get(o.clientId);
          assert.ok(other === undefined || other === o.orderId, `${round}: clientId ${o.clientId} is on orders ${other} and ${o.orderId}`);
          byClientId.set(o.clientId, o.orderId);
          seen.set(o.orderId, o);
        }
        if (page.length < 500) break;
        createdTo = Math.min(...page.map((o) => o.createdAt));
      }
      // Every fill in history, summed by order.
      for (let cursor = ''; fills; ) {
        const r = await withinBudget(() => client.request('GET', `/account/fills?account=${bt.trader.address}&subaccountIndex=${sub}&limit=5000${cursor}`, undefined, bt.trader.auth()));
        assert.equal(r.status, 200, `${round}: listing fills: ${r.text}`);
        for (const f of r.json()) filledBy.set(f.orderId, (filledBy.get(f.orderId) ?? 0) + Math.abs(Number(f.quantity)));
        const next = r.headers.get('x-next-cursor');
        if (next === null) break;
        cursor = `&cursor=${encodeURIComponent(next)}`;
      }
    }
  }
  let readAlone = 0;
  for (const a of acked) {
    let order = seen.get(a.orderId);
    if (order === undefined) {
      readAlone++;
      const r = await withinBudget(() => client.request('GET', `/account/order?orderId=${a.orderId}`, undefined, accounts[a.account].trader.auth()));
      assert.equal(r.status, 200, `${round}: acknowledged order ${a.orderId} (${a.clientId}) lost: ${r.text}`);
      order = r.json() as ListedOrder;
    }
    assert.equal(order.clientId, a.clientId, `${round}: order ${a.orderId} changed clientId`);
    const lot = LOAD_MARKETS[a.subaccountIndex % LOAD_MARKETS.length].lot;
    const settled = Math.round(Number(order.settled) / lot);
    assert.ok(settled >= a.settled, `${round}: order ${a.orderId} settled went from ${a.settled} lots at acknowledgement to ${settled}`);
    if (fills) {
      const filled = Math.round((filledBy.get(a.orderId) ?? 0) / lot);
      assert.equal(filled, settled, `${round}: order ${a.orderId} has settled ${settled} lots but its fills in history add up to ${filled}`);
    }
  }
  return readAlone;
}
