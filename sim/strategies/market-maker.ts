/**
 * A market maker: a few accounts quote both sides around the index with post-only orders of
 * some size, and now and then pull every quote (cancel all), so the book is deep, then thin.
 */
import { OrderFlag, Side } from '../../src/engine/types.ts';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { lotsForUsd, offsetTicks, referenceTicks, submitOrder, type SimContext, type Strategy } from '../clients.ts';

/** The makers are the first accounts. */
export const MAKERS = 4;

export const marketMaker: Strategy = {
  name: 'marketMaker',
  next(ctx: SimContext): Command | null {
    const { rng, time } = ctx;
    const account = ctx.clients.accounts[rng.below(MAKERS)];
    const market = rng.pick(ctx.markets).index;
    if (rng.chance(0.04)) return { kind: CommandKind.CancelAll, time, account: account.address, subaccountIndex: 0, market, caller: account.address };
    if (rng.chance(0.1) && account.orders.length > 0) return { kind: CommandKind.CancelOrder, time, orderId: account.orders[0], caller: account.address };
    const ref = referenceTicks(ctx, market);
    const side = rng.chance(0.5) ? Side.Buy : Side.Sell;
    return submitOrder(ctx, account, {
      market,
      side,
      price: offsetTicks(ref, -side * rng.between(1, 25)),
      quantity: lotsForUsd(ctx.markets[market], ref, rng.between(2_000, 20_000)),
      flags: OrderFlag.PostOnly,
    });
  },
};
