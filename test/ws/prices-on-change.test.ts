/**
 * `prices.<symbol>` (docs/feeds.md "Public channels"): the figures on subscribe, then a message
 * only when one of them changes. A first subscriber of a market's prices was sent the same
 * figures twice: on subscribing, and again at the next per-second check, which compared them
 * with what the topic last published before anybody subscribed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Feeds } from '../../src/ws/feeds.ts';
import { markets, RecordedConnection, standInPorts } from './feed-stand-ins.ts';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


test('a prices subscriber gets the figures once on subscribing, then only changes', async () => {
  const figures = { mark: 950_000, index: 950_000, last: undefined as number | undefined, fundingRate: null };
  const ports = standInPorts({ prices: () => ({ ...figures }) });
  const conns: RecordedConnection[] = [];
  const feeds = new Feeds(ports);
  feeds.attach({
    publish: (topic: string, text: string) => {
      for (const c of conns) if (c.topics.has(topic)) c.send(text);
      return true;
    },
    subscribers: (topic: string) => conns.filter((c) => c.topics.has(topic)).length,
  } as never);
  try {
    const open = (address: string) => {
      const admitted = feeds.endpoint.admit(address);
      assert.ok('state' in admitted);
      const conn = new RecordedConnection(admitted.state, address);
      feeds.endpoint.open(conn);
      conns.push(conn);
      return conn;
    };
    const topic = `prices.${markets[0].symbol}`;
    const prices = (c: RecordedConnection) => c.sent.filter((m) => m.type === 'prices').map((m) => m.markPrice);

    const first = open('10.0.0.1');
    feeds.endpoint.message(first, JSON.stringify({ op: 'subscribe', channels: [topic] }));
    await sleep(1_300); // past a per-second check, nothing changed
    assert.deepEqual(prices(first), ['95000'], 'the figures once, on subscribing');

    figures.mark = 950_010;
    await sleep(1_100);
    assert.deepEqual(prices(first), ['95000', '95001'], 'then the change');

    // A later subscriber, while a change waits for the next check: the earlier one gets the
    // change, the new one the figures on subscribing, and neither gets them again.
    figures.mark = 950_020;
    const second = open('10.0.0.2');
    feeds.endpoint.message(second, JSON.stringify({ op: 'subscribe', channels: [topic] }));
    await sleep(1_100);
    assert.deepEqual(prices(first), ['95000', '95001', '95002']);
    assert.deepEqual(prices(second), ['95002']);
  } finally {
    feeds.close();
  }
});
