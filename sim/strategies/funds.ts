/**
 * Money in and out: operator deposits and withdrawals, faucet credits, signed transfers
 * between accounts and subaccounts, and margin changes (isolated with a fraction, or back to
 * cross).
 */
import { RATE_ONE } from '../../src/config/market.ts';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { USD, type SimContext, type Strategy } from '../clients.ts';

export const funds: Strategy = {
  name: 'funds',
  next(ctx: SimContext): Command | null {
    const { rng, time } = ctx;
    const account = ctx.clients.pick(rng);
    const roll = rng.below(100);
    if (roll < 25) return { kind: CommandKind.Deposit, time, account: account.address, subaccountIndex: rng.chance(0.8) ? 0 : 1, amount: BigInt(rng.between(50, 5000)) * USD };
    if (roll < 35) return { kind: CommandKind.Faucet, time, account: account.address, subaccountIndex: 0, amount: BigInt(rng.between(1, 1000)) * USD };
    if (roll < 55) return { kind: CommandKind.Withdraw, time, account: account.address, subaccountIndex: 0, amount: BigInt(rng.between(1, 3000)) * USD + BigInt(rng.below(1_000_000)) };
    if (roll < 80) {
      const toOwn = rng.chance(0.4);
      const to = toOwn ? account : ctx.clients.pick(rng);
      const subFrom = toOwn && rng.chance(0.5) ? 1 : 0;
      return {
        kind: CommandKind.Transfer,
        time,
        accountFrom: account.address,
        subaccountIndexFrom: subFrom,
        accountTo: to.address,
        subaccountIndexTo: toOwn ? 1 - subFrom : 0,
        amount: BigInt(rng.between(1, 2000)) * USD + BigInt(rng.below(1_000_000)),
        feedId: '0x01',
        nonce: ctx.clients.nonce(account),
        expiresAt: time + 60_000,
        target: account.address,
        signer: account.address,
        signature: '0x',
      };
    }
    const market = rng.pick(ctx.markets).index;
    const isolated = rng.chance(0.6);
    const maxLeverage = ctx.markets[market].maxLeverage;
    return {
      kind: CommandKind.SetMargin,
      time,
      account: account.address,
      subaccountIndex: 0,
      market,
      isolated,
      margin: isolated ? RATE_ONE / BigInt(rng.between(1, maxLeverage)) : 0n,
      nonce: ctx.clients.nonce(account),
      expiresAt: time + 60_000,
      signer: account.address,
      signature: '0x',
    };
  },
};
