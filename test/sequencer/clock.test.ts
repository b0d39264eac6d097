/**
 * The clock's conditional-release timer (sequencer/clock) on real timers: a `Release` goes when
 * a market's `nextDueAt()` has passed, never before; a timer that falls due sooner after a
 * command (`rearm`, as the sequencer calls it after each) is released then, not at the older time; a due
 * timer whose `Release` cannot go yet (the clock idle) is retried; and a clock with nothing due
 * does not wake at all between its ticks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { ExchangeClock } from '../../src/sequencer/clock.ts';
import type { Outcome } from '../../src/sequencer/sequencer.ts';
import type { MarketSpec } from '../../src/config/market.ts';
import type { Exchange } from '../../src/app/exchange.ts';
import { marketNo } from '../fixtures/ids.ts';

const MARKETS = [{ index: marketNo(0) }, { index: marketNo(1) }] as unknown as MarketSpec[];
/** Ticks far apart: what these tests see is the release timer alone. */
const TICK_MS = 3_600_000;

/** A clock over two markets whose due times the test sets; a `Release` clears its market's, as the exchange's does. */
function clockWithTimers(options: { idle?: () => boolean } = {}) {
  const due = [0, 0];
  const released: { market: number; time: number; dueAt: number }[] = [];
  let lookups = 0;
  const exchange = {
    nextDueAt: (market: number) => {
      lookups++;
      return due[market];
    },
  } as unknown as Pick<Exchange, 'nextDueAt' | 'ledger'>;
  let clock: ExchangeClock;
  const submit = (command: Command): Promise<Outcome> => {
    if (command.kind === CommandKind.Release) {
      released.push({ market: command.market, time: command.time, dueAt: due[command.market] });
      due[command.market] = 0;
    }
    // The sequencer re-arms after every command it executes.
    clock.rearm();
    return Promise.resolve({ result: {}, bookResults: [], orders: [] } as unknown as Outcome);
  };
  clock = new ExchangeClock({ submit, exchange, markets: MARKETS, feed: null, now: Date.now, tickMs: TICK_MS, idle: options.idle ?? (() => false), logger: { error: () => {} } });
  return { clock, due, released, lookups: () => lookups };
}

const until = async (what: string, done: () => boolean, timeoutMs = 5_000) => {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

test('a due timer is released at its due time, not before, each market on its own', async (t) => {
  const { clock, due, released } = clockWithTimers();
  t.after(() => clock.stop());
  const now = Date.now();
  due[0] = now + 150;
  due[1] = now + 20;
  clock.start();
  await until('both releases', () => released.length === 2);
  // Each market once, at or after its own due time (a stalled process may release both together).
  assert.deepEqual(released.map((r) => r.market).sort(), [0, 1]);
  for (const r of released) assert.ok(r.time >= r.dueAt, `market ${r.market} released at ${r.time}, due at ${r.dueAt}`);
});

test('a timer that falls due sooner after a command is released then, not at the time armed before', async (t) => {
  const { clock, due, released } = clockWithTimers();
  t.after(() => clock.stop());
  due[0] = Date.now() + 600_000;
  clock.start();
  // A command brings an earlier due time (a TWAP's first slice); the pipeline re-arms.
  due[1] = Date.now() + 20;
  clock.rearm();
  await until('the earlier release', () => released.length === 1);
  assert.equal(released[0].market, 1);
  assert.ok(released[0].time >= released[0].dueAt);
  assert.equal(due[0] > Date.now(), true, 'the later timer is still waiting');
});

test('a due timer whose release cannot go yet (the clock idle) is retried until it goes', async (t) => {
  let idle = true;
  const { clock, due, released } = clockWithTimers({ idle: () => idle });
  t.after(() => clock.stop());
  due[0] = Date.now() + 10;
  clock.start();
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(released.length, 0, 'nothing is submitted while the clock is idle');
  idle = false;
  await until('the release once no longer idle', () => released.length === 1);
});

test('a clock stopped with its timer armed releases nothing', async () => {
  const { clock, due, released } = clockWithTimers();
  due[0] = Date.now() + 20;
  clock.start();
  clock.stop();
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(released.length, 0);
});

test('with nothing due the clock does not wake between its ticks; stopped, it releases nothing', async (t) => {
  const { clock, due, released, lookups } = clockWithTimers();
  t.after(() => clock.stop());
  clock.start();
  const before = lookups();
  await new Promise((resolve) => setTimeout(resolve, 100));
  // A poll every few ms would have looked at both markets' timers dozens of times by now.
  assert.equal(lookups(), before, 'the timers were looked at with nothing due');
  clock.stop();
  due[0] = Date.now();
  clock.rearm();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(released.length, 0);
});
