/**
 * Bad input a real client sends: a nonce used before, a request already expired, a signer
 * nobody delegated, an order too large for any margin, a size or type the book refuses, a
 * cancel of an order that does not exist, a duplicate clientId, withdrawals and transfers
 * beyond the balance, a margin fraction out of bounds, revoking a delegate never granted.
 * Each must be refused without changing anything else.
 */
import type { OrderType } from '../../src/types/orders.ts';
import { Side } from '../../src/engine/types.ts';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { USD, addressOf, lotsForUsd, offsetTicks, referenceTicks, submitOrder, type SimContext, type Strategy } from '../clients.ts';
import type { OrderId } from '../../src/types/ids.ts';

/** An orderId the client made up (a negative one too, as if past the gateway's parser): the application must refuse to cancel it. */
const madeUpOrderId = (n: number): OrderId => n as OrderId;

export const badInput: Strategy = {
  name: 'badInput',
  next(ctx: SimContext): Command | null {
    const { rng, time } = ctx;
    const account = ctx.clients.pick(rng);
    const market = rng.pick(ctx.markets).index;
    const ref = referenceTicks(ctx, market);
    const spec = ctx.markets[market];
    const side = rng.chance(0.5) ? Side.Buy : Side.Sell;
    const order = { market, side, price: offsetTicks(ref, side * 10), quantity: spec.minSizeLots };
    switch (rng.below(13)) {
      case 0:
        return submitOrder(ctx, account, { ...order, nonce: Math.max(1, account.nonce - rng.below(3)) });
      case 1:
        return submitOrder(ctx, account, { ...order, expiresAt: time - rng.between(1, 10_000) });
      case 2:
        return submitOrder(ctx, account, { ...order, signer: addressOf(0xdead00 + rng.below(16)) });
      case 3:
        return submitOrder(ctx, account, { ...order, quantity: lotsForUsd(spec, ref, 50_000_000) });
      case 4:
        return submitOrder(ctx, account, { ...order, quantity: Number.MAX_SAFE_INTEGER - rng.below(1000) });
      case 5:
        // A type the gateway never lets through: the application must still refuse it.
        return submitOrder(ctx, account, { ...order, orderType: 'market' as OrderType });
      case 6:
        return { kind: CommandKind.CancelOrder, time, orderId: madeUpOrderId(rng.between(1, 2 ** 40)), caller: account.address };
      case 7:
        return account.clientIds > 0 ? submitOrder(ctx, account, { ...order, clientId: `c${account.clientIds - 1}` }) : null;
      case 8:
        return { kind: CommandKind.Withdraw, time, account: account.address, subaccountIndex: rng.below(3), amount: 10_000_000n * USD };
      case 9:
        return {
          kind: CommandKind.Transfer,
          time,
          accountFrom: account.address,
          subaccountIndexFrom: 0,
          accountTo: rng.chance(0.5) ? account.address : ctx.clients.pick(rng).address,
          subaccountIndexTo: 0,
          amount: rng.chance(0.5) ? 10_000_000n * USD : 1n,
          feedId: '0x01',
          nonce: ctx.clients.nonce(account),
          expiresAt: time + 60_000,
          target: account.address,
          signer: account.address,
          signature: '0x',
        };
      case 10:
        return {
          kind: CommandKind.SetMargin,
          time,
          account: account.address,
          subaccountIndex: 0,
          market,
          isolated: true,
          margin: rng.chance(0.5) ? 0n : 10n ** 9n,
          nonce: ctx.clients.nonce(account),
          expiresAt: time + 60_000,
          signer: account.address,
          signature: '0x',
        };
      case 11:
        return {
          kind: CommandKind.Delegation,
          time,
          account: account.address,
          subaccountIndex: 0,
          delegate: addressOf(0xbeef00 + rng.below(16)),
          scopes: 'trade',
          action: 'remove',
          nonce: ctx.clients.nonce(account),
          expiresAt: time + 60_000,
          signer: account.address,
          signature: '0x',
        };
      default:
        return { kind: CommandKind.CancelOrder, time, orderId: madeUpOrderId(-1 - rng.below(100)), caller: account.address };
    }
  },
};
