/**
 * `npm run simulate` as a developer runs it (sim/main.ts, its own process): --help prints the
 * usage and exits 0; an unknown option or a value that is not a number is one line naming it,
 * the usage, and exit status 2 — never a stack trace. (The simulation itself: simulator.test.ts,
 * in process.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function simulate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'sim/main.ts', ...args], { cwd: ROOT, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('simulate: --help, and bad options refused as one line with exit 2', async () => {
  // Independent runs, side by side.
  const [help, unknown, notNumber] = await Promise.all([simulate('--help'), simulate('--bogus'), simulate('--commands', 'many')]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: npm run simulate -- --seed N --commands M/);
  for (const [refused, named] of [[unknown, /^Unknown option '--bogus'/], [notNumber, /^--commands: must be a whole number, got "many"/]] as const) {
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, named);
    assert.match(refused.stderr, /\nusage: npm run simulate/);
    assert.doesNotMatch(refused.stderr, /\n\s+at /, 'a stack trace instead of a line');
  }
});
