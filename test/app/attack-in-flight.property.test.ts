/**
 * Generated attacks on the whole application state machine (`Exchange`: order entry,
 * conditional orders, settlement, the ledger) with books that run only when the generator says
 * — a few commands at a time, as market threads do — so commands are decided while the fills
 * of earlier ones are still on their way back (test/app/reduce-only-in-flight found one that
 * way). Ten subaccounts of five addresses trade two markets at a constant index: limit orders
 * far through the mark, IOC, post-only, reduce-only, originator fees at the market's ceiling
 * to each other, stop-loss / take-profit orders and position-attached pairs, TWAPs and
 * icebergs, cancels, transfers between subaccounts and addresses, withdrawals, isolated and
 * cross margin, ticks (liquidations), and bursts: an owner's opening and reduce-only orders
 * sent together against an accomplice's orders far through the mark (`burst`; at the default
 * run count it catches the reduce-only lots in flight and the open lots a reduce-only order
 * may close, each taken out of ledger/holds `admitOrder`, which it did not before). With the
 * index still, the mark stays inside its band
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
import type { OrderId, OwnerIndex } from '../../src/types/ids.ts';
import { MARKETS, usd } from '../ledger/fixtures.ts';
import { RATE_ONE } from '../../src/config/market.ts';
import { notional, notionalScale } from '../../src/ledger/units.ts';
import { Prng } from '../../sim/prng.ts';
import { FundPayouts } from '../../sim/fund-payouts.ts';

const RUNS = Number(process.env.IN_FLIGHT_RUNS ?? 30);
const STEPS = Number(process.env.IN_FLIGHT_STEPS ?? 400);
const SEED = Number(process.env.IN_FLIGHT_SEED ?? 700_000);

const ADDRESSES: Address[] = ['1', '2', '3', '4', '5'].map((c) => `0x${c.repeat(40)}` as Address);
const ZERO: Address = `0x${'0'.repeat(40)}`;
/** Index per market in ticks: BTC 100 USD (tick 1), ETH 10 USD (tick 0.01). */
const INDEX = [100, 1000];
const scales = MARKETS.map(notionalScale);

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

  /** The price of an order of `side` far through the mark: a buy far above it, a sell far below. */
  const through = (m: number, side: 1 | -1) => (side > 0 ? Math.round(INDEX[m] * pick([1.3, 1.6, 3])) : Math.max(1, Math.round(INDEX[m] * pick([0.01, 0.4, 0.7]))));
  const submit = (account: Address, sub: number, m: number, side: 1 | -1, price: number, quantity: number, flags: number) => {
    const result = exec({ kind: CommandKind.SubmitOrder, time, ...batchOrder(account, sub, m, 'limit', side, price, quantity, flags) } as Command);
    if (result.orderId !== undefined) orderIds.push(result.orderId);
  };
  /**
   * A burst: the owner sends, with nothing flushed in between, rounds of an opening order and
   * then reduce-only orders on both sides (the first round sometimes without its opening
   * order), some far through the mark, some far larger than the position, up to 2^53 − 1 lots
   * ("close whatever there is"); its accomplice quotes the other side of the opening orders at
   * their price, for the lots they and the position come to, and rests orders far through the
   * mark on both sides to take what the reduce-only orders sell or buy there. Each order is
   * decided while the fills of the ones before it are on their way back, and a reduce-only
   * order closes what the book has, not what the ledger has settled: right behind the opening
   * order (test/app/reduce-only-in-flight), or behind a reduce-only order that closed the
   * position and the opening order that reversed it (test/app/reduce-only-bypass). Half the
   * bursts start from a position the ledger knows, opened at full leverage against the
   * accomplice, its owner having withdrawn all but 0.5 to 5 % of its notional; the opening
   * orders then mostly reverse it, the way of the thinner book near the mark (which the
   * reduce-only orders closing the reversal meet).
   */
  const burst = (account: Address, sub: number, m: number) => {
    let accomplice = pick(ADDRESSES);
    const accompliceSub = rng.below(2);
    if (accomplice === account && accompliceSub === sub) accomplice = ADDRESSES[(ADDRESSES.indexOf(account) + 1) % ADDRESSES.length];
    const owner = ex.ledger.findOwner(account, sub);
    const partner = ex.ledger.findOwner(accomplice, accompliceSub);
    /** The owner's position as the ledger has it (the fills it has settled). */
    const position = () => (owner === undefined ? 0 : ex.ledger.position(owner, m as never));
    /** The most lots at `price` whose initial margin the free collateral of `who` holds (at least one). */
    const affordable = (who: OwnerIndex | undefined, price: number) => {
      if (who === undefined) return 1;
      const free = (ex.ledger.stats(who)!.freeCollateralCross * RATE_ONE) / ex.ledger.marginSetting(who, m as never).fraction;
      return Math.max(1, Number(free / notional(scales[m], price, 1)));
    };
    /** The accomplice is funded for what it quotes when its free collateral is short of a fifth of the notional. */
    const fund = (price: number, quantity: number) => {
      const wanted = notional(scales[m], price, quantity) / 5n - (partner === undefined ? 0n : ex.ledger.stats(partner)!.freeCollateral);
      if (wanted > 0n) exec({ kind: CommandKind.Deposit, time, account: accomplice, subaccountIndex: accompliceSub, amount: wanted });
    };
    /** Lots resting on `bookSide` (+1 bids) within 10 % of the index. */
    const nearLots = (bookSide: 1 | -1) => books[m].depth(bookSide, 1_000, 1).reduce((a, l) => a + ((bookSide > 0 ? l.price >= INDEX[m] * 0.9 : l.price <= INDEX[m] * 1.1) ? l.quantity : 0), 0);
    /** Mostly the way an order meets the thinner book near the mark (a buy meets the asks). */
    const thin: 1 | -1 = rng.below(4) === 0 ? pick([1, -1]) : nearLots(-1) < nearLots(1) ? 1 : -1;
    if (rng.below(2) === 0) {
      const price = priceNear(m, 1);
      const quantity = Math.max(1, Math.floor(affordable(owner, price) * 0.9));
      fund(price, quantity);
      submit(accomplice, accompliceSub, m, (-thin) as 1 | -1, price, quantity, 0);
      submit(account, sub, m, thin, price, quantity, OrderFlag.ImmediateOrCancel);
      flush(m, Infinity);
      const free = owner === undefined ? 0n : ex.ledger.stats(owner)!.freeCollateral;
      const keep = notional(scales[m], price, Math.abs(position())) / BigInt(int(20, 200));
      if (free > keep) exec({ kind: CommandKind.Withdraw, time, account, subaccountIndex: sub, amount: free - keep });
    }
    const held = position();
    const side: 1 | -1 = held !== 0 && rng.below(4) > 0 ? (held < 0 ? 1 : -1) : ((-thin) as 1 | -1);
    const price = priceNear(m, 1);
    const both = Math.max(1, Math.floor(Math.min(affordable(owner, price), affordable(partner, price)) * 0.9));
    const opening = Array.from({ length: int(1, 3) }, (_, round) => (round === 0 && rng.below(2) === 0 ? 0 : pick([lots(m), both, Math.abs(held) || lots(m), Math.abs(held) || lots(m)])));
    const inPlay = Math.abs(held) + opening.reduce((a, b) => a + b, 0);
    fund(price, inPlay);
    if (inPlay > 0) submit(accomplice, accompliceSub, m, (-side) as 1 | -1, price, inPlay, 0);
    for (const way of [1, -1] as const) submit(accomplice, accompliceSub, m, way, through(m, (-way) as 1 | -1), inPlay + lots(m), 0);
    for (const quantity of opening) {
      if (quantity > 0) submit(account, sub, m, side, price, quantity, pick([0, OrderFlag.ImmediateOrCancel]));
      const closing: Array<1 | -1> = rng.below(2) === 0 ? [1, -1] : [-1, 1];
      if (rng.below(2) === 0) closing.push(pick([1, -1]));
      for (const closes of closing) {
        const size = pick([lots(m), lots(m) * int(2, 50), Math.abs(position()) + 1, Math.abs(position()) + 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]);
        // Mostly at the accomplice's quote the way of the opening orders, far through the mark the other way.
        const far = closes === side ? rng.below(4) === 0 : rng.below(4) > 0;
        submit(account, sub, m, closes, far ? through(m, closes) : closes === side ? price : priceNear(m, 1), size, pick([OrderFlag.ReduceOnly, OrderFlag.ReduceOnly | OrderFlag.ImmediateOrCancel]));
      }
    }
  };

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
    } else if (r < 85) {
      burst(account, sub, m);
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
