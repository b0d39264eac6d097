/**
 * The testnet faucet's allowance across a restart (issue 14, item 9): counted from the
 * exchange's journaled state, so a restart, from the journal or from a snapshot, neither forgets
 * it nor grants it again. The rest of the faucet's behaviour: test/behaviour/api-faucet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { ok } from '../harness/api-helpers.ts';
import { assertAllowanceUsed, balance, clearOfMidnight, faucet, takeAllowance } from '../harness/faucet-helpers.ts';

for (const snapshot of [false, true]) {
  test(`the allowance survives a restart ${snapshot ? 'from a snapshot' : 'replaying the journal'}`, async () => {
    const first = await startInProcessExchange();
    await clearOfMidnight(first);
    const alice = await new Trader(first).login();
    const bob = await new Trader(first).login();
    await takeAllowance(alice);
    ok(await faucet(bob));
    const second = await first.restart({ snapshot });
    assert.equal(second.exchange.recovery.snapshotSeq > 0, snapshot);
    for (const trader of [alice, bob]) {
      trader.ex = second;
      await trader.login();
    }
    await assertAllowanceUsed(second, alice);
    assert.equal(await balance(alice, 0), '30000');
    // Bob's one credit before the restart counts too: four more, then refused.
    for (let i = 0; i < 4; i++) ok(await faucet(bob));
    await assertAllowanceUsed(second, bob);
  });
}
