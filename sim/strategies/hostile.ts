/**
 * Hostile users (issue 13), run only with `--hostile`: a fee siphon (a reduce-only order
 * paying an accomplice an originator fee at its market's ceiling, or far beyond its notional), a reduce-only ladder (more
 * resting reduce-only lots than the position holds), a dust flood (transfers of one base
 * unit to ever new addresses), relayed orders (an account's order signed by someone it never
 * delegated to: must be refused), a liquidation cascade (a whale near maximum leverage,
 * the opposite book pulled thin, a sharp index move against it) and orders far through the
 * mark into an accomplice's (what their holds do not cover, the insurance fund would pay). With them the simulator
 * checks conservation, leverage and the insurance fund after every step (sim/bounds.ts).
 */
import { OrderFlag, Side } from '../../src/engine/types.ts';
import { RATE_ONE } from '../../src/config/market.ts';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { addressOf, lotsForUsd, offsetTicks, referenceTicks, submitOrder, type SimContext, type Strategy } from '../clients.ts';
import { DELEGATE_BASE } from './delegation.ts';
import { MAKERS } from './market-maker.ts';
import type { MarketIndex } from '../../src/types/ids.ts';

/** An account with a position in some market, and that position (lots, signed), or null. */
function positioned(ctx: SimContext): { account: ReturnType<SimContext['clients']['pick']>; market: MarketIndex; lots: number } | null {
  const account = ctx.clients.pick(ctx.rng);
  const owner = ctx.exchange.ledger.findOwner(account.address, 0);
  if (owner === undefined) return null;
  const market = ctx.rng.pick(ctx.markets).index;
  const lots = ctx.exchange.ledger.position(owner, market);
  return lots === 0 ? null : { account, market, lots };
}

export const feeSiphon: Strategy = {
  name: 'feeSiphon',
  next(ctx: SimContext): Command | null {
    const p = positioned(ctx);
    if (p === null) return null;
    const side = p.lots > 0 ? Side.Sell : Side.Buy;
    const accomplice = ctx.clients.pick(ctx.rng);
    return submitOrder(ctx, p.account, {
      market: p.market,
      side,
      price: offsetTicks(referenceTicks(ctx, p.market), side * 100),
      quantity: Math.abs(p.lots),
      flags: OrderFlag.ReduceOnly | OrderFlag.ImmediateOrCancel,
      originator: accomplice.address,
      // Half the time the market's ceiling, which is accepted: the fee is then held, charged and paid out, so the
      // ledger's originator-fee path runs (no honest strategy names an originator); otherwise far above it, refused.
      originatorFee: ctx.rng.chance(0.5) ? Number(ctx.markets[p.market].maxOriginatorFee) : ctx.rng.chance(0.5) ? 1_000_000_000 : Number.MAX_SAFE_INTEGER,
    });
  },
};

export const reduceOnlyLadder: Strategy = {
  name: 'reduceOnlyLadder',
  next(ctx: SimContext): Command | null {
    const p = positioned(ctx);
    if (p === null) return null;
    const side = p.lots > 0 ? Side.Sell : Side.Buy;
    return submitOrder(ctx, p.account, {
      market: p.market,
      side,
      price: offsetTicks(referenceTicks(ctx, p.market), -side * ctx.rng.between(1, 30)),
      quantity: Math.abs(p.lots),
      flags: OrderFlag.ReduceOnly,
    });
  },
};

export const dustFlood: Strategy = {
  name: 'dustFlood',
  next(ctx: SimContext): Command | null {
    const account = ctx.clients.pick(ctx.rng);
    return {
      kind: CommandKind.Transfer,
      time: ctx.time,
      accountFrom: account.address,
      subaccountIndexFrom: 0,
      accountTo: addressOf(0x200000 + ctx.clients.strangers++),
      subaccountIndexTo: ctx.rng.below(4),
      amount: 1n,
      feedId: '0x01',
      nonce: ctx.clients.nonce(account),
      expiresAt: ctx.time + 60_000,
      target: account.address,
      signer: account.address,
      signature: '0x',
    };
  },
};

/** An order for one account signed by another account, or by another account's delegate: the exchange must refuse it. */
export const relayedOrder: Strategy = {
  name: 'relayedOrder',
  next(ctx: SimContext): Command | null {
    const { rng } = ctx;
    const account = ctx.clients.pick(rng);
    const relay = ctx.clients.pick(rng);
    if (relay === account) return null;
    const market = rng.pick(ctx.markets).index;
    const side = rng.chance(0.5) ? Side.Buy : Side.Sell;
    const command = submitOrder(ctx, account, {
      market,
      side,
      price: offsetTicks(referenceTicks(ctx, market), side * 20),
      quantity: ctx.markets[market].minSizeLots,
      signer: rng.chance(0.5) ? relay.address : addressOf(DELEGATE_BASE + relay.index),
    });
    ctx.clients.mustRefuse.add(command);
    return command;
  },
};

/**
 * A liquidation cascade, in three moves the seed spaces out: a whale takes a position of about
 * 40 times its collateral; the makers pull their quotes (the book opposite a liquidation is
 * thin); the index jumps 8–20 % against the whale. The next Tick liquidates into what is left.
 */
export const cascade: Strategy = {
  name: 'cascade',
  next(ctx: SimContext): Command | null {
    const { rng, time } = ctx;
    const plan = ctx.clients.plans;
    const phase = plan.get('cascade') ?? 0;
    const market = ctx.markets[plan.get('cascadeMarket') ?? rng.below(ctx.markets.length)].index;
    const whale = ctx.clients.accounts[MAKERS + (plan.get('cascadeWhale') ?? rng.below(ctx.clients.accounts.length - MAKERS))];
    const side = (plan.get('cascadeSide') ?? (rng.chance(0.5) ? Side.Buy : Side.Sell)) as Side;
    plan.set('cascadeMarket', market).set('cascadeWhale', whale.index - MAKERS).set('cascadeSide', side);
    plan.set('cascade', (phase + 1) % 3);
    const ref = referenceTicks(ctx, market);
    if (phase === 0) {
      const owner = ctx.exchange.ledger.findOwner(whale.address, 0);
      const usd = owner === undefined ? 1_000 : Number(ctx.exchange.ledger.collateral(owner) / 1_000_000n);
      return submitOrder(ctx, whale, { market, side, price: offsetTicks(ref, side * 200), quantity: lotsForUsd(ctx.markets[market], ref, usd * 40), flags: OrderFlag.ImmediateOrCancel });
    }
    if (phase === 1) {
      const maker = ctx.clients.accounts[rng.below(MAKERS)];
      return { kind: CommandKind.CancelAll, time, account: maker.address, subaccountIndex: 0, market, caller: maker.address };
    }
    plan.delete('cascadeMarket');
    plan.delete('cascadeWhale');
    plan.delete('cascadeSide');
    return { kind: CommandKind.IndexPrice, time, market, price: offsetTicks(ref, -side * rng.between(800, 2000)) };
  },
};

/**
 * Orders far through the mark into an accomplice's (the in-flight generator's attacks,
 * test/app/attack-in-flight.property), in two moves the seed spaces out: the attacker picks
 * cross or isolated margin at some fraction in a market; then, in one burst before the market
 * thread runs, the makers pull their quotes there, an accomplice rests an order 20–80 % through
 * the index, and the attacker trades into it — opening a position there (a short sold below the
 * mark, a long bought above it), or opening one at the market with an IOC and, right behind it,
 * closing it into the accomplice's order reduce-only (the book has the fill before the ledger
 * does). An order's hold covers what its fill can lose against the mark; what it did not, the
 * insurance fund would pay (sim/fund-payouts.ts).
 */
export const throughTheMark: Strategy = {
  name: 'throughTheMark',
  next(ctx: SimContext): Command | null {
    const { rng, time } = ctx;
    const plan = ctx.clients.plans;
    const others = ctx.clients.accounts.length - MAKERS;
    const market = ctx.markets[plan.get('throughMarket') ?? rng.below(ctx.markets.length)].index;
    const attacker = ctx.clients.accounts[MAKERS + (plan.get('throughAttacker') ?? rng.below(others))];
    const spec = ctx.markets[market];
    if (!plan.has('throughMarket')) {
      plan.set('throughMarket', market).set('throughAttacker', attacker.index - MAKERS);
      const isolated = rng.chance(0.6);
      return {
        kind: CommandKind.SetMargin, time, account: attacker.address, subaccountIndex: 0, market, isolated,
        // Half the time at the maximum leverage: the least margin, the nearest to maintenance.
        margin: isolated ? RATE_ONE / BigInt(rng.chance(0.5) ? spec.maxLeverage : rng.between(1, spec.maxLeverage)) : 0n,
        nonce: ctx.clients.nonce(attacker), expiresAt: time + 60_000, signer: attacker.address, signature: '0x',
      };
    }
    plan.delete('throughMarket');
    plan.delete('throughAttacker');
    const accomplice = ctx.clients.accounts[MAKERS + ((attacker.index - MAKERS + 1 + rng.below(others - 1)) % others)];
    const side: Side = rng.chance(0.5) ? Side.Buy : Side.Sell;
    const ref = referenceTicks(ctx, market);
    const price = offsetTicks(ref, side * rng.between(2_000, 8_000));
    const owner = ctx.exchange.ledger.findOwner(attacker.address, 0);
    const usd = owner === undefined ? 100 : Math.max(1, Number(ctx.exchange.ledger.collateral(owner) / 1_000_000n));
    const quantity = lotsForUsd(spec, ref, (usd * rng.between(3, 10 * spec.maxLeverage)) / 10);
    const follow = ctx.clients.followUps;
    for (let i = 1; i < MAKERS; i++) {
      const maker = ctx.clients.accounts[i];
      follow.push({ kind: CommandKind.CancelAll, time, account: maker.address, subaccountIndex: 0, market, caller: maker.address });
    }
    follow.push(submitOrder(ctx, accomplice, { market, side: -side as Side, price, quantity: quantity * 2 }));
    if (rng.chance(0.5)) follow.push(submitOrder(ctx, attacker, { market, side, price, quantity, flags: OrderFlag.ImmediateOrCancel }));
    else {
      follow.push(submitOrder(ctx, attacker, { market, side: -side as Side, price: offsetTicks(ref, -side * 200), quantity, flags: OrderFlag.ImmediateOrCancel }));
      follow.push(submitOrder(ctx, attacker, { market, side, price, quantity, flags: OrderFlag.ReduceOnly | OrderFlag.ImmediateOrCancel }));
    }
    const maker = ctx.clients.accounts[0];
    return { kind: CommandKind.CancelAll, time, account: maker.address, subaccountIndex: 0, market, caller: maker.address };
  },
};
