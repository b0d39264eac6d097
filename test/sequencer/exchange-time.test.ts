/**
 * The exchange's time (sequencer/exchange-time) and the sequencer's order of times: the host's
 * clock stepping back never takes either back. The pipeline's behaviour under a step is
 * test/behaviour/clock-step-back's and test/e2e/clock-step-back's; here the rule itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, decodeCommand, isKnownCommandKind, type Command } from '../../src/app/commands.ts';
import { payloadView } from '../../src/journal/journal.ts';
import { ExchangeTime, lastJournaledTime } from '../../src/sequencer/exchange-time.ts';
import { CountingLogger, SimNode, nextTurn } from '../../sim/node.ts';
import { ALICE, MARKETS, usd } from '../ledger/fixtures.ts';
import type { Address } from '../../src/types/address.ts';

const HOUR = 3_600_000;
const T = 1_800_000_000_000;

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'warn', fields, message }),
    info: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'info', fields, message }),
  };
}

test('the host clock stepped back an hour: the time runs on from where it was at the steady pace, warned once, and follows the host again once it passes', () => {
  const clocks = { host: T, steady: 0 };
  const logger = recordingLogger();
  const time = new ExchangeTime({ host: () => clocks.host, steady: () => clocks.steady, from: 0, logger });
  assert.equal(time.now(), T);

  clocks.host -= HOUR;
  assert.equal(time.now(), T, 'not back');
  for (let i = 1; i <= 3; i++) {
    clocks.host += 1_000;
    clocks.steady += 1_000;
    assert.equal(time.now(), T + i * 1_000, 'on at the steady pace');
  }
  assert.deepEqual(logger.lines.map((l) => [l.level, l.fields.behindMs]), [['warn', HOUR]], 'one warning for the step, with its size');

  clocks.host += HOUR + 2_000; // an NTP step forward puts the host 2 s past the exchange's time
  assert.equal(time.now(), T + 5_000);
  assert.equal(logger.lines.at(-1)?.level, 'info');
  clocks.host += 5;
  assert.equal(time.now(), T + 5_005, 'the host clock again');
  assert.equal(logger.lines.length, 2);
});

const deposit = (time: number): Command => ({ kind: CommandKind.Deposit, time, account: ALICE as Address, subaccountIndex: 0, amount: usd(10_000) });

/** Submits `command` to `node` and flushes the simulated disk until it is durable. */
async function run(node: SimNode, command: Command): Promise<void> {
  const done = node.sequencer.submit(command);
  await nextTurn();
  node.storage.flush();
  assert.equal((await done).result.code, 0);
}

test('a start on a host an hour behind the journal goes on from the journal\'s last command', async () => {
  const node = await SimNode.fresh(MARKETS, {}, new CountingLogger(), T);
  await run(node, deposit(T + 10));
  assert.equal(lastJournaledTime(node.journal), T + 10);

  const logger = recordingLogger();
  const time = new ExchangeTime({ host: () => T - HOUR, steady: () => 0, from: lastJournaledTime(node.journal), logger });
  assert.equal(time.now(), T + 10);
  assert.equal(logger.lines[0].fields.behindMs, HOUR + 10);
});

test('a command stamped before the last one run (its signature verified while a later one went first, or a clock stepped back) runs and is journaled at the last one\'s time', async () => {
  const node = await SimNode.fresh(MARKETS, {}, new CountingLogger(), T);
  await run(node, deposit(T + 5_000));
  await run(node, deposit(T + 1_000));
  const times: number[] = [];
  for (const entry of node.journal.range(1)) if (isKnownCommandKind(entry.kind)) times.push(decodeCommand(payloadView(entry)).time);
  assert.deepEqual(times, [T, T + 5_000, T + 5_000], 'the markets record, the deposit, the deposit stamped earlier at the one before\'s time');
});
