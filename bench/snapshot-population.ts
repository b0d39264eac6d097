/**
 * A populated exchange for the snapshot bench and test: `accounts` subaccounts, each funded by
 * the faucet, holding a position (accounts cross one another in pairs) and one resting order,
 * entered straight through the sequencer (no HTTP, no signatures: `Exchange.execute` does not
 * check them, the gateway's pool does).
 */
import { CommandKind, type Command, type SubmitOrder } from '../src/app/commands.ts';
import type { Sequencer } from '../src/sequencer/sequencer.ts';
import { marketNo } from '../test/fixtures/ids.ts';
import type { Address } from '../src/types/address.ts';

const FAR_FUTURE = 4_102_444_800_000;

/** The address of the `i`-th account (0x + 40 hex digits). */
export function accountAddress(i: number): Address {
  return `0x${i.toString(16).padStart(40, '0')}`;
}

export function order(account: Address, nonce: number, side: 1 | -1, price: number, quantity: number, time: number, ioc = false): SubmitOrder {
  return {
    kind: CommandKind.SubmitOrder,
    time,
    account,
    subaccountIndex: 0,
    market: marketNo(0),
    orderType: 'limit',
    side,
    price,
    quantity,
    flags: ioc ? 1 : 0,
    expiresAt: FAR_FUTURE,
    nonce,
    clientId: null,
    originator: '0x0000000000000000000000000000000000000000',
    originatorFee: 0,
    triggerPrice: null,
    parentOrderId: null,
    period: null,
    trailingPercent: null,
    signer: account,
    signature: '0x',
  };
}

/** Submits `commands` in windows of `window` in flight; throws on the first refusal. */
async function submitAll(sequencer: Sequencer, commands: Iterable<Command>, window = 4000): Promise<void> {
  let batch: Promise<unknown>[] = [];
  for (const command of commands) {
    batch.push(sequencer.submit(command));
    if (batch.length >= window) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
}

/**
 * Opens `accounts` accounts: each is funded, crosses its neighbour (even buys from odd) for a
 * position, and leaves one order resting away from the touch.
 */
export async function populate(sequencer: Sequencer, accounts: number, time: number): Promise<void> {
  const mid = 950_000; // BTC ticks of 0.1: 95,000
  function* funding() {
    for (let i = 1; i <= accounts; i++) yield { kind: CommandKind.Faucet, time, account: accountAddress(i), subaccountIndex: 0, amount: 10_000_000_000n } as Command;
  }
  function* positions() {
    for (let i = 1; i + 1 <= accounts; i += 2) {
      yield order(accountAddress(i), 1, -1, mid, 1, time);
      yield order(accountAddress(i + 1), 1, 1, mid, 1, time, true);
    }
  }
  function* resting() {
    for (let i = 1; i <= accounts; i++) yield order(accountAddress(i), 2, i % 2 === 0 ? 1 : -1, i % 2 === 0 ? mid - 1000 - (i % 500) : mid + 1000 + (i % 500), 1, time);
  }
  await submitAll(sequencer, funding());
  await submitAll(sequencer, positions());
  await submitAll(sequencer, resting());
}
