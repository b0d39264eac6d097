/**
 * A journal with a command this build does not know — written by a newer build, then the
 * operator rolled back — is refused at start and by `journal verify --replay`, naming the record,
 * with nothing changed. Replaying past it would reach another state than the newer build answered
 * under, in silence: the build before the markets record started on a journal holding one and ran
 * on (found by hand, session 23).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandKind, encodeCommand, isKnownCommandKind, type MarketsCommand } from '../../src/app/commands.ts';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { DataRefusedError } from '../../src/journal/refusal.ts';
import { startTestExchange, tempDataDir } from './harness.ts';
import { bundleOf, nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHIPPED: Record<string, unknown>[] = JSON.parse(readFileSync(join(ROOT, 'config/markets.json'), 'utf8')).markets;
/** A command kind in the commands' range (64–127) that this build does not know. */
const FUTURE_KIND = 100;

test('a journal holding a command of a kind this build does not know (a newer build wrote it) is refused, naming the record; nothing is changed', async (t) => {
  assert.equal(isKnownCommandKind(FUTURE_KIND), false);
  const dataDir = tempDataDir(t, 'perp-newer-build-');
  const journalDir = join(dataDir, 'journal');
  const journal = await Journal.open(LmdbJournalStorage.open(journalDir), { logger: { info: () => {}, error: () => {} } });
  const markets: MarketsCommand = { kind: CommandKind.Markets, time: Date.now(), markets: SHIPPED };
  journal.append(CommandKind.Markets, encodeCommand(markets));
  journal.append(FUTURE_KIND, new TextEncoder().encode(JSON.stringify({ kind: FUTURE_KIND, time: Date.now(), market: 0 })));
  await journal.close();

  const refused = await startTestExchange({ dataDir }).then(
    () => assert.fail('the start was not refused'),
    (e: unknown) => e,
  );
  assert.ok(refused instanceof DataRefusedError, String(refused));
  assert.match(refused.message, /journal record 2 is a command of kind 100, which this build does not know: a newer build wrote it/);

  const reader = await Journal.open(LmdbJournalStorage.open(journalDir, { readOnly: true }), { readOnly: true, logger: { info: () => {}, error: () => {} } });
  assert.equal(reader.lastSeq(), 2, 'nothing was appended (no markets record, no tick)');
  await reader.close();

  const run = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), 'verify', '--data-dir', journalDir, '--replay', bundleOf('src/sequencer/replay-target.ts')], { cwd: ROOT, encoding: 'utf8' });
  assert.notEqual(run.status, 0, run.stdout);
  assert.match(run.stdout + run.stderr, /journal record 2 is a command of kind 100/);
});
