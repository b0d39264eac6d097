/**
 * GET /asyncapi.json as a contract a generated feed client relies on: every message a session
 * receives — replies (with and without an `id`), refusals, snapshots, deltas, trades, candles,
 * prices, summaries, a delegate's private stream — is one of the messages the document
 * declares for that connection, and validates against its payload with no undeclared field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fundedTraders, startTestExchange, Trader } from './harness.ts';
import { BTC, delegate } from '../harness/api-helpers.ts';
import { FeedClient } from './feed-client.ts';
import { caughtUp, openPosition, setMark, submit } from '../harness/conditional-helpers.ts';

/**
 * Object schemas closed to fields they do not declare (as a strict generated client reads them):
 * an object declared without its properties (`{type: 'object'}`) declares none.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)])) : closed(v)]));
  if ((copy.properties !== undefined || copy.type === 'object') && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

/** Every kind of message the session below must receive. */
const RECEIVED = ['pong', 'error', 'subscribed', 'unsubscribed', 'login', 'snapshot', 'trades', 'candle', 'prices', 'summary', 'order', 'fill', 'position', 'balance', 'stats', 'live'];

test('every message a feed session receives is declared by the AsyncAPI document, field for field', async () => {
  const ex = await startTestExchange();
  const doc = (await ex.request('GET', '/asyncapi.json')).json();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const received = Object.values(doc.operations as Record<string, any>)
    .filter((op) => op.action === 'receive')
    .map((op) => op.channel.$ref.split('/').pop())
    .concat('control')
    .flatMap((channel: string) => Object.values(doc.channels[channel].messages as Record<string, { $ref: string }>).map((m) => m.$ref.split('/').pop()!));
  const validators = [...new Set(received)].map((name) => ({ name, validate: ajv.compile(closed(doc.components.messages[name].payload) as object) }));

  const [owner, other] = await fundedTraders(ex, 2, '100000');
  const reader = await new Trader(ex).login();
  await delegate(owner, reader, 'read');
  const feed = await FeedClient.connect(ex.url);
  feed.send({ op: 'ping' });
  feed.send({ op: 'ping', id: 1 });
  feed.send('not json');
  feed.send({ op: 'dance', id: 2 });
  feed.send({ op: 'subscribe', id: 3, channels: ['book.NOPE'] });
  feed.send({ op: 'subscribe', channels: [`book.${BTC}`, 'trades.BTC', 'candles.BTC.1m', 'prices.BTC', 'summary.BTC'] });
  feed.send({ op: 'subscribe', id: 4, channels: [`account.${owner.address}.0`] });
  feed.send({ op: 'login', id: 5, token: 'x.y.z' });
  feed.send({ op: 'login', token: reader.token });
  feed.send({ op: 'subscribe', id: 6, channels: [{ channel: `account.${owner.address}.0`, since: 0 }] });
  feed.send({ op: 'subscribe', id: 7, channels: [`account.${other.address}.0`] });
  await feed.next((m) => m.type === 'live', 'the private stream live');
  await setMark(ex, '95000');
  await openPosition(owner, other, '0.01', '95000');
  await submit(owner, { orderType: 'stopLoss', price: '80000', quantity: '-0.01', triggerPrice: '90000', reduceOnly: true });
  await caughtUp(ex);
  await feed.next((m) => m.type === 'trades', 'the public trade');
  // The candle, prices and summary come with the next publication (once a second): every kind
  // of message but the unsubscribe replies is in before the unsubscribes go.
  const arrived = (type: string) => feed.messages.some((m) => m.type === type);
  await feed.until(() => RECEIVED.every((type) => type === 'unsubscribed' || arrived(type)), 'a message of every kind');
  feed.send({ op: 'unsubscribe', channels: ['trades.BTC'] });
  feed.send({ op: 'unsubscribe', id: 8, channels: ['prices.BTC'] });
  await feed.next((m) => m.id === 8, 'the unsubscribe reply');
  await feed.close();

  const types = new Set(feed.messages.map((m) => m.type));
  for (const type of RECEIVED) assert.ok(types.has(type), `the session received a ${type} message`);
  const problems = feed.messages
    .map((m) => {
      const results = validators.map(({ name, validate }) => ({ name, ok: validate(m), errors: validate.errors }));
      if (results.some((r) => r.ok)) return '';
      const same = results.filter((r) => JSON.stringify(doc.components.messages[r.name].payload.properties.type ?? {}).includes(`"${m.type}"`));
      return `${JSON.stringify(m).slice(0, 200)}: ${same.length === 0 ? 'no declared message has this type' : same.map((r) => `${r.name} ${JSON.stringify(r.errors?.slice(0, 2))}`).join('; ')}`;
    })
    .filter((p) => p !== '');
  assert.deepEqual(problems, []);
});
