/**
 * The process logger writes a line when it is logged: a line logged before a long synchronous
 * step (the start-up replay after `replaying journal`) reaches whoever reads the output during
 * that step, not after it. With pino's default asynchronous stream the second of two lines
 * waits for the first write's callback, i.e. for the main thread to be free again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LOG_MODULE = fileURLToPath(new URL('../src/log.ts', import.meta.url));
const BLOCK_MS = 1500;

test('a line logged before a long synchronous step is out before the step ends', async () => {
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOG_MODULE)});
    const logger = createLogger('info');
    logger.info('journal opened');
    logger.info('replaying journal');
    const until = Date.now() + ${BLOCK_MS};
    while (Date.now() < until);
    logger.info('journal replayed');
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const arrived = new Map<string, number>();
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) arrived.set(JSON.parse(line).msg, performance.now());
  });
  await new Promise((resolve) => child.once('close', resolve));
  const before = arrived.get('replaying journal');
  const after = arrived.get('journal replayed');
  assert.ok(before !== undefined && after !== undefined, `lines read: ${[...arrived.keys()].join(', ')}`);
  assert.ok(after - before > BLOCK_MS / 2, `'replaying journal' arrived only ${(after - before).toFixed(0)} ms before the line logged ${BLOCK_MS} ms after it`);
});
