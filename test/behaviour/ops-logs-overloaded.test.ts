/**
 * The gateway's log lines about refusals, as an operator reads them: without ACCESS_LOG no
 * request is logged; every 503 but a probe's is one warn line naming its reason. The lines of a
 * real process (the start-up line, a refused write at debug, the access log, the stop line):
 * test/e2e/ops-logs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';

test('without ACCESS_LOG no request is logged; every 503 but a probe\'s is a warn line naming its reason', async () => {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  const ex = await startInProcessExchange({ logger: pino({ level: 'info' }, sink) });
  const [trader] = await fundedTraders(ex, 1, '1000');
  ex.exchange.sequencer.overloaded = () => 'journal is behind';
  assert.equal((await trader.place({ price: '95000', quantity: '0.01' })).status, 503);
  // A probe's 503 is its answer (asked every few seconds for as long as it holds): no warn line of its own.
  assert.equal((await ex.request('GET', '/ready')).status, 503);
  const warned = lines.filter((e) => e.msg === 'overloaded: answered 503');
  assert.equal(warned.length, 1);
  assert.equal(warned[0].level, 40);
  assert.equal(warned[0].reason, 'Service overloaded: journal is behind');
  assert.equal(warned[0].route, '/account/order');
  assert.equal(lines.filter((e) => e.msg === 'request').length, 0, 'the access log is off by default');
});
