/**
 * `perp`'s help and its refusals of bad input, through cli/run's `runCli` in this process (what
 * the `perp` process runs; test/e2e/cli.test.ts runs the process itself against an exchange):
 * every command's `--help` starts with its usage line and lists its options, `perp --help` lists
 * every command, and bad input is exit status 2 with one line saying what to send — before
 * anything is sent (no exchange runs here: the URL is a closed port).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS } from '../../src/cli/commands.ts';
import { runCli } from '../../src/cli/run.ts';

/** `perp ARGS` in process: its exit status and what it wrote. */
async function perp(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...args], { out: (text) => (stdout += `${text}\n`), err: (text) => (stderr += `${text}\n`) });
  return { code, stdout, stderr };
}

test('--help on every command: its usage line, its summary, its options', async () => {
  for (const command of COMMANDS) {
    const help = await perp(...command.name.split(' '), '--help');
    assert.equal(help.code, 0, command.name);
    assert.match(help.stdout, new RegExp(`^usage: perp ${command.name}`), command.name);
    assert.ok(help.stdout.includes(command.summary), `${command.name}: its summary`);
    for (const option of Object.keys(command.options ?? {})) assert.match(help.stdout, new RegExp(`--${option}\\b`), `${command.name}: --${option}`);
  }
});

test('perp --help lists every command', async () => {
  const overview = await perp('--help');
  assert.equal(overview.code, 0);
  for (const command of COMMANDS) assert.ok(overview.stdout.includes(`  ${command.name} `), command.name);
  assert.deepEqual(await perp(), overview, 'no arguments shows the same');
});

test('bad input: one line on standard error, exit status 2, nothing sent', async () => {
  const closed = ['--url', 'http://127.0.0.1:9'];
  for (const args of [
    ['order', 'place', 'BTC', 'hold', '1'],
    ['order', 'place', 'BTC', 'buy', '1e3'],
    ['book', 'BTC', '--depth', 'ten'],
    ['frobnicate'],
    ['order'],
    ['positions', '--nope'],
    ['order', 'list', '--subaccount', '-1'],
  ]) {
    const run = await perp(...args, ...(args[0] === 'frobnicate' || args.length === 1 ? [] : closed));
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /^perp: [^\n]+\n$/, args.join(' '));
    assert.equal(run.stdout, '', args.join(' '));
  }
});

test('an exchange that cannot be reached: exit status 1 and one line', async () => {
  const run = await perp('book', 'BTC', '--url', 'http://127.0.0.1:9');
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^perp: [^\n]+\n$/);
});

test('feed follow against an exchange that cannot be reached: exit status 1 and one line, not a silent exit', async () => {
  const run = await perp('feed', 'follow', 'trades.BTC', '--url', 'http://127.0.0.1:9');
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /^perp: cannot reach the exchange's feed at http:\/\/127\.0\.0\.1:9\n$/);
});

test('journal: the journal tool’s exit status is perp’s, and the test process’s own is left alone', async () => {
  // What it was before: node:test sets it to 1 when an earlier test of this process failed.
  const before = process.exitCode;
  const run = await perp('journal', 'inspect', '/nonexistent/journal');
  assert.notEqual(run.code, 0);
  assert.equal(process.exitCode, before);
});
