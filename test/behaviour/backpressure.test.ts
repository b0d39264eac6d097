import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { signedTransfer } from '../harness/api-helpers.ts';

test('when the journal or a market is behind, writes get 503 with the reason and nothing is accepted', async () => {
  const ex = await startInProcessExchange();
  const [alice] = await fundedTraders(ex, 1, '100000');
  const sequencer = ex.exchange.sequencer;
  const body = await alice.signedOrder({ price: '95000', quantity: '0.1', clientId: 'under-pressure' });

  for (const reason of ['journal is behind', 'a market is behind']) {
    sequencer.overloaded = () => reason;
    const refused = await ex.request('POST', '/account/order', body, alice.auth());
    assert.equal(refused.status, 503);
    assert.equal(refused.text, `Service overloaded: ${reason}`);
    assert.match(refused.headers.get('content-type') ?? '', /text\/plain/);
    assert.equal(refused.headers.get('retry-after'), '1', 'a 503 says when to retry');
  }
  // Reads never wait on the pipeline.
  assert.equal((await ex.request('GET', '/book/BTC-USD-PERP')).status, 200);

  // Nothing of the refused order was kept: its nonce is unused, so the same signed order goes through.
  delete (sequencer as { overloaded?: unknown }).overloaded;
  const accepted = await ex.request('POST', '/account/order', body, alice.auth());
  assert.equal(accepted.status, 200, accepted.text);
  assert.equal(accepted.json()[0].clientId, 'under-pressure');
});

test('an account write the exchange cannot take is refused 503 with the reason, as an order is', async () => {
  // The sequencer's refusal reaches the account routes through their own port (http/ports `Overloaded`).
  const ex = await startInProcessExchange();
  const [alice] = await fundedTraders(ex, 1, '100000');
  ex.exchange.sequencer.overloaded = () => 'journal is behind';
  const refused = await ex.request('POST', '/account/transfer', await signedTransfer(alice, { accountTo: alice.address, subaccountIndexTo: 1, amount: '10' }), alice.auth());
  assert.equal(refused.status, 503);
  assert.equal(refused.text, 'Service overloaded: journal is behind');
});

test('the sequencer refuses before changing anything when a command ring has no room', async () => {
  const ex = await startInProcessExchange();
  const sequencer = ex.exchange.sequencer as unknown as { links: { hasRoom(n: number): boolean }[] };
  const link = sequencer.links[0];
  const hasRoom = link.hasRoom;
  link.hasRoom = () => false;
  assert.equal(ex.exchange.sequencer.overloaded(), 'a market is behind');
  link.hasRoom = hasRoom;
  assert.equal(ex.exchange.sequencer.overloaded(), null);
});
