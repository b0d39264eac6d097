/**
 * Delegation: an account grants a trading delegate or revokes it; the trader strategy then
 * signs some of its orders with the delegate's address (refused once revoked).
 */
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { addressOf, type SimContext, type Strategy } from '../clients.ts';

/** Delegates' addresses sit far above the accounts'. */
export const DELEGATE_BASE = 0x100000;

export const delegation: Strategy = {
  name: 'delegation',
  next(ctx: SimContext): Command | null {
    const { rng, time } = ctx;
    const account = ctx.clients.pick(rng);
    const remove = account.delegate !== null && rng.chance(0.4);
    const delegate = account.delegate ?? addressOf(DELEGATE_BASE + account.index);
    account.delegate = remove ? null : delegate;
    return {
      kind: CommandKind.Delegation,
      time,
      account: account.address,
      subaccountIndex: 0,
      delegate,
      scopes: 'trade',
      action: remove ? 'remove' : 'add',
      nonce: ctx.clients.nonce(account),
      expiresAt: time + 60_000,
      signer: account.address,
      signature: '0x',
    };
  },
};
