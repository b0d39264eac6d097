/**
 * No answer names the server software (issue 18: every answer advertised `uWebSockets: 20`,
 * telling a scanner which parser to aim at): not a read, not a refusal, not an unknown path.
 * uWebSockets.js writes the mark from native code; the build is told to leave it out
 * (http/uws-native). Over a real listener (`listen`): the header is the socket's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';

test('no answer carries a uWebSockets header (a read, a refusal, a 404)', async () => {
  const ex = await (await startInProcessExchange()).listen();
  const answers = [
    await ex.request('GET', '/book/BTC-USD-PERP'),
    await ex.request('POST', '/account/order', { not: 'an order' }),
    await ex.request('GET', '/no-such-route'),
  ];
  assert.deepEqual(answers.map((a) => a.status), [200, 401, 404]);
  for (const answer of answers) {
    assert.ok(answer.headers.get('date') !== null, 'the answer has its headers');
    assert.equal(answer.headers.get('uwebsockets'), null, `${answer.status} ${answer.text}: no uWebSockets header`);
  }
});
