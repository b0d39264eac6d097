/**
 * Hostile users (issue 13), run only with `--hostile`: a fee siphon (a reduce-only order
 * paying an accomplice an originator fee far beyond its notional), a reduce-only ladder (more
 * resting reduce-only lots than the position holds), and a dust flood (transfers of one base
 * unit to ever new addresses). With them the simulator checks conservation and the insurance
 * fund after every step.
 */
import { OrderFlag, Side } from '../../src/engine/types.ts';
import { CommandKind, type Command } from '../../src/runtime/commands.ts';
import { addressOf, offsetTicks, referenceTicks, submitOrder, type SimContext, type Strategy } from '../clients.ts';

/** An account with a position in some market, and that position (lots, signed), or null. */
function positioned(ctx: SimContext): { account: ReturnType<SimContext['clients']['pick']>; market: number; lots: number } | null {
  const account = ctx.clients.pick(ctx.rng);
  const owner = ctx.exchange.ledger.findOwner(account.address, 0);
  if (owner === undefined) return null;
  const market = ctx.rng.below(ctx.markets.length);
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
      originatorFee: ctx.rng.chance(0.5) ? 1_000_000_000 : Number.MAX_SAFE_INTEGER,
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
