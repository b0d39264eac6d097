/**
 * The index feed: a random walk in basis points with rare shocks of 3–15 % (the moves that put
 * leveraged accounts under maintenance margin, so ticks liquidate them), pulled back towards
 * where each market started so prices stay in a sane range over a long run.
 */
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { offsetTicks, referenceTicks, type SimContext, type Strategy } from '../clients.ts';

export const oracle: Strategy = {
  name: 'oracle',
  next(ctx: SimContext): Command | null {
    const { rng } = ctx;
    const market = rng.pick(ctx.markets).index;
    const ref = referenceTicks(ctx, market);
    const drift = ref > ctx.initialTicks[market] * 1.3 ? -20 : ref < ctx.initialTicks[market] * 0.7 ? 20 : 0;
    const bps = rng.chance(0.03) ? (rng.chance(0.5) ? 1 : -1) * rng.between(300, 1500) : rng.between(-30, 30) + drift;
    return { kind: CommandKind.IndexPrice, time: ctx.time, market, price: offsetTicks(ref, bps) };
  },
};
