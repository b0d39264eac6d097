/**
 * A trader: limit orders around the index that often cross the book (IOC, post-only and
 * reduce-only among them, some with a clientId or an expiry), and cancels by orderId, by
 * clientId and all at once.
 */
import { OrderFlag, Side } from '../../src/engine/types.ts';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { lotsForUsd, offsetTicks, referenceTicks, submitOrder, type SimContext, type Strategy } from '../clients.ts';

export const trader: Strategy = {
  name: 'trader',
  next(ctx: SimContext): Command | null {
    const { rng, time } = ctx;
    const account = ctx.clients.pick(rng);
    const market = rng.pick(ctx.markets).index;
    const roll = rng.below(100);
    if (roll < 10 && account.orders.length > 0) {
      return { kind: CommandKind.CancelOrder, time, orderId: rng.pick(account.orders), caller: account.address };
    }
    if (roll < 12) {
      return { kind: CommandKind.CancelAll, time, account: account.address, subaccountIndex: 0, market: rng.chance(0.5) ? market : null, caller: account.address };
    }
    if (roll < 15 && account.clientIds > 0) {
      // A cancel by clientId, as the gateway sends it: the open order with that clientId, by its orderId.
      const order = ctx.exchange.orders.byClient(account.address, `c${rng.below(account.clientIds)}`);
      if (order !== undefined) return { kind: CommandKind.CancelOrder, time, orderId: order.orderId, caller: account.address };
    }
    const spec = ctx.markets[market];
    const ref = referenceTicks(ctx, market);
    const side = rng.chance(0.5) ? Side.Buy : Side.Sell;
    // Mostly near the touch; a third cross it by up to 0.6 %.
    const price = offsetTicks(ref, side * rng.between(-40, 60));
    const f = rng.below(100);
    const flags = f < 15 ? OrderFlag.ImmediateOrCancel : f < 25 ? OrderFlag.PostOnly : f < 33 ? OrderFlag.ReduceOnly : 0;
    return submitOrder(ctx, account, {
      market,
      side,
      price,
      quantity: lotsForUsd(spec, ref, rng.between(10, 4000)),
      flags,
      clientId: rng.chance(0.2) ? `c${account.clientIds++}` : null,
      expiresAt: rng.chance(0.1) ? time + rng.between(500, 60_000) : 0,
      // A delegate trades for the account now and then.
      signer: account.delegate !== null && rng.chance(0.3) ? account.delegate : undefined,
    });
  },
};
