/**
 * Generated attacks on the whole application state machine (`Exchange`: order entry,
 * conditional orders, settlement, the ledger) with books that run only when the generator says
 * — a few commands at a time, as market threads do — so commands are decided while the fills
 * of earlier ones are still on their way back (test/app/reduce-only-in-flight found one that
 * way). Ten subaccounts of five addresses trade two markets at a constant index: limit orders
 * far through the mark, IOC, post-only, reduce-only, originator fees at the market's ceiling
 * to each other, stop-loss / take-profit orders and position-attached pairs, TWAPs and
 * icebergs, cancels, transfers between subaccounts and addresses, withdrawals, isolated and
 * cross margin, ticks (liquidations). With the index still, the mark stays inside its band
 * (half the maintenance fraction each way) and no funding boundary is reached, so nobody can
 * be made bankrupt by the market beyond the band's rounding (below): a larger `shortfall` paid
 * is money an order took that its hold did not cover (sim/fund-payouts.ts, the rule the hostile
 * simulator checks too, where the index moves). Checked: money conserved after every step, no shortfall, every invariant at
 * the end. IN_FLIGHT_RUNS / IN_FLIGHT_STEPS / IN_FLIGHT_SEED run it long.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type BatchOrder, type Command } from '../../src/app/commands.ts';
import { Exchange } from '../../src/app/exchange.ts';
import type { MarketRouter } from '../../src/app/ports.ts';
import { FastOrderBook } from '../../src/engine/fast-book.ts';
import { OrderFlag, type PlaceOrder } from '../../src/engine/types.ts';
import type { Address } from '../../src/types/address.ts';
import type { OrderId } from '../../src/types/ids.ts';
import { MARKETS, usd } from '../ledger/fixtures.ts';
import { Prng } from '../../sim/prng.ts';
import { FundPayouts } from '../../sim/fund-payouts.ts';

const RUNS = Number(process.env.IN_FLIGHT_RUNS ?? 30);
const STEPS = Number(process.env.IN_FLIGHT_STEPS ?? 400);
const SEED = Number(process.env.IN_FLIGHT_SEED ?? 700_000);

const ADDRESSES: Address[] = ['1', '2', '3', '4', '5'].map((c) => `0x${c.repeat(40)}` as Address);
const ZERO: Address = `0x${'0'.repeat(40)}`;
/** Index per market in ticks: BTC 100 USD (tick 1), ETH 10 USD (tick 0.01). */
const INDEX = [100, 1000];

function run(seed: number): void {
  const rng = new Prng(seed);
  const int = (lo: number, hi: number) => lo + rng.below(hi - lo + 1);
  const pick = <T>(xs: readonly T[]): T => xs[rng.below(xs.length)];
  const queues: Array<Array<() => void>> = MARKETS.map(() => []);
  let books: FastOrderBook[] = [];
  const router: MarketRouter = {
    place: (m, cmd: PlaceOrder) => queues[m].push(() => books[m].place({ ...cmd })),
    cancel: (m, id, owner, time) => queues[m].push(() => books[m].cancel(id, owner, time)),
    cancelAll: (m, owner, time, reason) => queues[m].push(() => books[m].cancelAll(owner, time, reason)),
    expire: (m, time) => queues[m].push(() => books[m].expire(time)),
  };
  // Neither the fund nor the winners pay an owner's losses, net of the liquidation fees the fund
  // took from it, beyond the mark band's tolerance and what ADL or socialised loss took from it
  // (sim/fund-payouts.ts, shared with the hostile simulator): the index is still and no funding
  // boundary is reached. Nobody is marked healthy, so the rule spans each whole run.
  const payouts: FundPayouts = new FundPayouts(MARKETS, { mark: (m) => ex.ledger.prices(m).mark, position: (o, m) => ex.ledger.position(o, m) });
  const ex = new Exchange(MARKETS, router, {
    ledgerEvent: (e) => payouts.onLedgerEvent(e),
  }, { ledger: { faucet: true }, accountLimits: { minTransfer: 1n } });
  books = MARKETS.map((m) => new FastOrderBook(m.index, ex.listener(m.index), { minSizeLots: m.minSizeLots }));
  /** The market thread of `m` takes up to `n` commands (the ones their events cause wait behind). */
  const flush = (m: number, n: number) => {
    const q = queues[m];
    for (let i = 0; i < n && q.length > 0; i++) q.shift()!();
  };
  const flushAll = () => {
    while (queues.some((q) => q.length > 0)) for (let m = 0; m < queues.length; m++) flush(m, 1_000);
  };
  let time = 1_000;
  let nonce = 0;
  const exec = (c: Command) => ex.execute(c);
  assert.equal(ex.ledger.fundInsurance(usd(1_000), time), 0);
  for (const [m, price] of INDEX.entries()) exec({ kind: CommandKind.IndexPrice, time, market: m as never, price });
  for (const a of ADDRESSES) for (const sub of [0, 1]) exec({ kind: CommandKind.Deposit, time, account: a, subaccountIndex: sub, amount: usd(int(5, 400)) });
  const orderIds: OrderId[] = [];

  const batchOrder = (account: Address, sub: number, market: number, orderType: string, side: 1 | -1, price: number, quantity: number, flags: number, extra: Partial<BatchOrder> = {}): BatchOrder => {
    const fee = rng.below(4) === 0;
    return {
      account, subaccountIndex: sub, market: market as never, orderType: orderType as never, side, price, quantity, flags, expiresAt: 0,
      nonce: ++nonce, clientId: null,
      originator: fee ? pick(ADDRESSES) : ZERO,
      originatorFee: fee ? Number(MARKETS[market].maxOriginatorFee) : 0,
      triggerPrice: null, parentOrderId: null, period: null, trailingPercent: null, signer: account, signature: '0x', ...extra,
    };
  };
  const priceNear = (m: number, spread: number) => Math.max(1, Math.round(INDEX[m] * (1 + (rng.below(2 * spread + 1) - spread) / 100)));
  const lots = (m: number) => (m === 0 ? pick([1, 7, 100, 500, 1000, 3000]) : pick([1, 13, 1000, 50_000, 200_000]));

  for (let step = 0; step < STEPS; step++) {
    time += int(0, 30);
    const account = pick(ADDRESSES);
    const sub = rng.below(2);
    const m = rng.below(MARKETS.length);
    const side: 1 | -1 = rng.below(2) === 0 ? 1 : -1;
    const r = rng.below(100);
    let result;
    if (r < 30) {
      const flags = pick([0, 0, OrderFlag.ImmediateOrCancel, OrderFlag.PostOnly, OrderFlag.ReduceOnly, OrderFlag.ReduceOnly | OrderFlag.ImmediateOrCancel]);
      result = exec({ kind: CommandKind.SubmitOrder, time, ...batchOrder(account, sub, m, 'limit', side, priceNear(m, pick([1, 3, 10, 60])), lots(m), flags) } as Command);
    } else if (r < 40) {
      const kind = pick(['stopLoss', 'takeProfit']);
      const trigger = priceNear(m, 3);
      result = exec({ kind: CommandKind.SubmitOrder, time, ...batchOrder(account, sub, m, kind, side, priceNear(m, pick([3, 60])), lots(m), pick([0, OrderFlag.ReduceOnly]), { triggerPrice: trigger }) } as Command);
    } else if (r < 45) {
      const mark = ex.ledger.prices(m as never).mark || INDEX[m];
      const q = lots(m);
      const long = side < 0; // a pair closing a long sells
      const tp = batchOrder(account, sub, m, 'takeProfit', side, priceNear(m, 60), q, OrderFlag.ReduceOnly, { triggerPrice: long ? mark + int(1, 3) : Math.max(1, mark - int(1, 3)) });
      const sl = batchOrder(account, sub, m, 'stopLoss', side, priceNear(m, 60), q, OrderFlag.ReduceOnly, { triggerPrice: long ? Math.max(1, mark - int(1, 3)) : mark + int(1, 3) });
      result = exec({ kind: CommandKind.SubmitPair, time, takeProfit: tp, stopLoss: sl } as Command);
    } else if (r < 50) {
      const type = pick(['twap', 'iceberg']);
      const n = int(2, 5);
      const price = priceNear(m, pick([1, 10, 60]));
      const flags = pick([0, OrderFlag.ReduceOnly]);
      const orders = Array.from({ length: n }, () => batchOrder(account, sub, m, type, side, price, lots(m), flags, { period: type === 'twap' ? int(10, 200) : null }));
      result = exec({ kind: CommandKind.SubmitSlices, time, orderType: type, orders } as Command);
    } else if (r < 58 && orderIds.length > 0) {
      result = exec({ kind: CommandKind.CancelOrder, time, orderId: pick(orderIds), caller: account });
    } else if (r < 60) {
      result = exec({ kind: CommandKind.CancelAll, time, account, subaccountIndex: sub, market: rng.below(2) === 0 ? null : (m as never), caller: account });
    } else if (r < 66) {
      const to = rng.below(3) === 0 ? pick(ADDRESSES) : account;
      const toSub = to === account ? 1 - sub : rng.below(2);
      result = exec({ kind: CommandKind.Transfer, time, accountFrom: account, subaccountIndexFrom: sub, accountTo: to, subaccountIndexTo: toSub, amount: usd(int(1, 200)), feedId: '', nonce: ++nonce, expiresAt: Number.MAX_SAFE_INTEGER, target: account, signer: account, signature: '0x' });
    } else if (r < 69) {
      result = exec({ kind: CommandKind.Withdraw, time, account, subaccountIndex: sub, amount: usd(int(1, 200)) });
    } else if (r < 74) {
      const spec = MARKETS[m];
      const fraction = pick([spec.initialMarginFraction, spec.initialMarginFraction * 2n, 100_000_000n]);
      result = exec({ kind: CommandKind.SetMargin, time, account, subaccountIndex: sub, market: m as never, isolated: rng.below(2) === 0, margin: fraction, nonce: ++nonce, expiresAt: Number.MAX_SAFE_INTEGER, signer: account, signature: '0x' });
    } else if (r < 78) {
      result = exec({ kind: CommandKind.Tick, time });
    } else if (r < 80) {
      result = exec({ kind: CommandKind.Deposit, time, account, subaccountIndex: sub, amount: usd(int(1, 50)) });
    } else {
      flush(m, int(1, 6));
    }
    if (result?.orderId !== undefined) orderIds.push(result.orderId);
    for (const id of result?.orderIds ?? []) orderIds.push(id);
    if (rng.below(3) === 0) flush(rng.below(MARKETS.length), int(1, 4));
    ex.ledger.checkConservation();
    assert.equal(payouts.broken, null, `seed ${seed}, step ${step}`);
  }
  flushAll();
  exec({ kind: CommandKind.Tick, time: time + 1 });
  flushAll();
  ex.validateInternalState();
  assert.equal(payouts.broken, null, `seed ${seed}`);
}

test(`in-flight attacks at a still index: ${RUNS} runs of ${STEPS} steps from seed ${SEED} — money conserved, the fund pays no shortfall`, () => {
  for (let i = 0; i < RUNS; i++) run(SEED + i);
});
