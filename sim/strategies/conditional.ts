/**
 * Conditional orders: stops, take-profits and trailing stops on their own, TP/SL pairs
 * attached to the position, TWAPs and icebergs (each child a signed order with its own nonce).
 * Triggers land on both sides of the mark, so some are refused as already crossed.
 */
import type { OrderType } from '../../src/types/orders.ts';
import { OrderFlag, Side } from '../../src/engine/types.ts';
import { RATE_ONE } from '../../src/config/market.ts';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { batchOrder, lotsForUsd, offsetTicks, referenceTicks, submitOrder, type SimContext, type Strategy } from '../clients.ts';

export const conditional: Strategy = {
  name: 'conditional',
  next(ctx: SimContext): Command | null {
    const { rng, time } = ctx;
    const account = ctx.clients.pick(rng);
    const market = rng.pick(ctx.markets).index;
    const ref = referenceTicks(ctx, market);
    const spec = ctx.markets[market];
    const side = rng.chance(0.5) ? Side.Buy : Side.Sell;
    const quantity = lotsForUsd(spec, ref, rng.between(10, 2000));
    const kind = rng.below(5);
    if (kind === 0 || kind === 1) {
      const orderType = rng.pick<OrderType>(['takeProfit', 'stopLoss', 'trailingStop']);
      return submitOrder(ctx, account, {
        market,
        side,
        orderType,
        price: offsetTicks(ref, side * rng.between(0, 200)),
        quantity,
        flags: rng.chance(0.5) ? OrderFlag.ReduceOnly : 0,
        triggerPrice: orderType === 'trailingStop' ? null : offsetTicks(ref, rng.between(-300, 300)),
        trailingPercent: orderType === 'trailingStop' ? (RATE_ONE * BigInt(rng.between(1, 50))) / 1000n : null,
      });
    }
    if (kind === 2) {
      // Closes the position: a sell pair takes profit above and stops below (a buy pair the reverse).
      const tp = offsetTicks(ref, -side * rng.between(10, 500));
      const sl = offsetTicks(ref, side * rng.between(10, 500));
      const leg = (orderType: OrderType, trigger: number) =>
        batchOrder(ctx, account, { market, side, orderType, price: offsetTicks(trigger, side * 50), quantity, flags: OrderFlag.ReduceOnly, triggerPrice: trigger });
      return { kind: CommandKind.SubmitPair, time, takeProfit: leg('takeProfit', tp), stopLoss: leg('stopLoss', sl) };
    }
    const orderType = kind === 3 ? 'twap' : 'iceberg';
    const children = rng.between(2, 6);
    const period = orderType === 'twap' ? rng.between(200, 5000) : null;
    const price = offsetTicks(ref, side * rng.between(-20, 40));
    const orders = Array.from({ length: children }, () => batchOrder(ctx, account, { market, side, orderType, price, quantity, period }));
    return { kind: CommandKind.SubmitSlices, time, orderType, orders };
  },
};
