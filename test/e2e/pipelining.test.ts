/**
 * HTTP/1.1 pipelining through the real server: requests written back to back on one keep-alive
 * connection before any answer is read, over raw sockets (node:net), as a pipelining client or a
 * proxy would send them.
 *
 * The promise (docs/api.md, "Pipelining"): every answer that comes back is the answer to the
 * request at its position, in order; a request the client did not hang up on that gets no answer
 * (the server closes the connection) took no effect, so sending it again places it exactly once.
 * When the client hangs up itself, an unanswered order may have been placed, and is then found by
 * its clientId, and sending it again returns it instead of placing it twice.
 *
 * Reads answered at once (no other thread involved) are answered in order however many arrive
 * together. How many writes a pipelined run gets answered depends on how uWebSockets.js reads the
 * connection; the tests report it, and assert the promise for whatever number it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, Trader, fundedTraders } from './harness.ts';
import { encodeRequest, pipeline, type RawResponse } from './fuzz-http.ts';
import { seeded } from '../../bench/seeded.ts';

const SEED = Number(process.env.PIPELINE_SEED ?? Date.now() % 1_000_000);

/**
 * One exchange for the file: each test pipelines on its own connections as its own trader (its
 * orders, its clientIds, its budget), and reads only that trader's orders.
 */
const ex = await startTestExchange();
const port = ex.exchange.port;

async function newTrader(): Promise<Trader> {
  const [trader] = await fundedTraders(ex, 1, '1000000');
  return trader;
}

let restingPrice = 50_000;

/** A signed bid far below the market, so it rests (nothing crosses it), with its clientId. */
async function restingOrder(trader: Trader, clientId: string): Promise<{ clientId: string; body: Record<string, unknown>; bytes: Buffer }> {
  const body = await trader.signedOrder({ price: String(restingPrice++), quantity: '0.001', clientId });
  const bytes = encodeRequest({
    method: 'POST',
    target: '/account/order',
    headers: [
      ['Authorization', `Bearer ${trader.token}`],
      ['Content-Type', 'application/json'],
    ],
    body: Buffer.from(JSON.stringify(body)),
    keepAlive: true,
  });
  return { clientId, body, bytes };
}

function getRequest(target: string): Buffer {
  return encodeRequest({ method: 'GET', target, headers: [], keepAlive: true });
}

/** The order with this clientId as the exchange reports it (status 200), or 404 if it was never placed. */
async function byClientId(trader: Trader, clientId: string) {
  return trader.get(`/account/order?clientId=${clientId}&account=${trader.address}`);
}

/** The order in a 200 answer to POST /account/order. */
function placed(response: RawResponse): { orderId: string; clientId: string } {
  assert.equal(response.status, 200, response.body.toString());
  const [order] = JSON.parse(response.body.toString());
  return order;
}

/**
 * Checks the promise for orders written pipelined: answers in order and placed; unanswered ones
 * not placed unless the client hung up (then placed or not, and found by clientId); then sends
 * every unanswered one again, one request at a time, and checks each is placed exactly once.
 */
async function checkOrders(trader: Trader, orders: Array<{ clientId: string; body: Record<string, unknown> }>, answers: RawResponse[], clientHungUp: boolean): Promise<void> {
  for (let i = 0; i < answers.length; i++) {
    const order = placed(answers[i]);
    assert.equal(order.clientId, orders[i].clientId, `answer ${i} is not the answer to request ${i}`);
    const found = await byClientId(trader, orders[i].clientId);
    assert.equal(found.status, 200, `answered order ${orders[i].clientId} is not there: ${found.text}`);
    assert.equal(found.json().orderId, order.orderId);
  }
  // A signed order sent the ordinary way passes the signature threads and the sequencer after
  // anything the server was still doing for the pipelined ones: once it is answered, an
  // unanswered order that was going to be placed has been.
  const barrier = await trader.place({ price: String(restingPrice++), quantity: '0.001', clientId: `barrier-${restingPrice}` });
  assert.equal(barrier.status, 200, barrier.text);
  for (const order of orders.slice(answers.length)) {
    const found = await byClientId(trader, order.clientId);
    if (!clientHungUp) assert.equal(found.status, 404, `order ${order.clientId} got no answer, yet it was placed: ${found.text}`);
    else assert.ok(found.status === 200 || found.status === 404, found.text);
    const again = await trader.send('POST', '/account/order', order.body);
    assert.equal(again.status, 200, `sending ${order.clientId} again: ${again.text}`);
    const [retried] = again.json();
    if (found.status === 200) assert.equal(retried.orderId, found.json().orderId, `${order.clientId} was placed twice`);
  }
  const list = (await trader.get(`/account/orders?account=${trader.address}&subaccountIndex=0&limit=500`)).json();
  const clientIds = [...list.asks, ...list.bids].map((o: { clientId: string }) => o.clientId);
  for (const order of orders) assert.equal(clientIds.filter((c) => c === order.clientId).length, 1, `${order.clientId} is not placed exactly once`);
}

test('ten signed orders pipelined in one write: each answer in order and placed; no unanswered order placed', async (t) => {
  const trader = await newTrader();
  const orders = await Promise.all(Array.from({ length: 10 }, (_, i) => restingOrder(trader, `one-write-${i}`)));
  const run = await pipeline(port, [Buffer.concat(orders.map((o) => o.bytes))], { expect: 10, timeoutMs: 5_000 });
  t.diagnostic(`answered ${run.responses.length} of 10, connection ${run.closed ? 'closed' : 'open'}`);
  if (run.responses.length < 10) assert.ok(run.closed, 'fewer than 10 answers, yet the connection stayed open');
  await checkOrders(trader, orders, run.responses, false);
});

test('ten signed orders pipelined in ten writes: the same promise', async (t) => {
  const trader = await newTrader();
  const orders = await Promise.all(Array.from({ length: 10 }, (_, i) => restingOrder(trader, `ten-writes-${i}`)));
  const run = await pipeline(port, orders.map((o) => o.bytes), { expect: 10, timeoutMs: 5_000, gapMs: 1 });
  t.diagnostic(`answered ${run.responses.length} of 10`);
  if (run.responses.length < 10) assert.ok(run.closed);
  await checkOrders(trader, orders, run.responses, false);
});

test('an order and a read pipelined: the order is answered first and placed, or not placed at all', async () => {
  const trader = await newTrader();
  const order = await restingOrder(trader, 'then-read');
  const read = getRequest('/time');
  const run = await pipeline(port, [Buffer.concat([order.bytes, read])], { expect: 2, timeoutMs: 5_000 });
  if (run.responses.length === 2) assert.equal(run.responses[1].status, 200);
  await checkOrders(trader, [order], run.responses.slice(0, 1), false);
});

test('a client that hangs up mid-way: what was answered is placed; what was not is placed only where its clientId finds it', async () => {
  const trader = await newTrader();
  const orders = await Promise.all(Array.from({ length: 10 }, (_, i) => restingOrder(trader, `hang-up-${i}`)));
  const run = await pipeline(port, orders.map((o) => o.bytes), { expect: 10, timeoutMs: 5_000, gapMs: 1, hangUpAfter: 1 });
  await checkOrders(trader, orders, run.responses, true);
});

test('reads pipelined in one write are all answered, in order', async () => {
  const paths = Array.from({ length: 20 }, (_, i) => `/no-such-route-${i}`);
  const run = await pipeline(port, [Buffer.concat(paths.map(getRequest))], { expect: paths.length, timeoutMs: 5_000 });
  assert.equal(run.responses.length, paths.length, 'a pipelined read went unanswered');
  run.responses.forEach((r, i) => assert.equal(r.body.toString(), `Route not found: ${paths[i]}`));
});

test(`generated pipelined runs of orders, refusals and reads keep the promise (seed ${SEED})`, async (t) => {
  const rand = seeded(SEED);
  const trader = await newTrader();
  let answered = 0;
  let sent = 0;
  for (let round = 0; round < 25; round++) {
    type Item = { kind: 'order'; order: Awaited<ReturnType<typeof restingOrder>> } | { kind: 'bad' } | { kind: 'read'; path: string };
    const items: Item[] = [];
    const count = 1 + Math.floor(rand() * 6);
    for (let i = 0; i < count; i++) {
      const pick = rand();
      if (pick < 0.6) items.push({ kind: 'order', order: await restingOrder(trader, `gen-${round}-${i}`) });
      else if (pick < 0.8) items.push({ kind: 'bad' });
      else items.push({ kind: 'read', path: `/no-such-route-${round}-${i}` });
    }
    const bytes = items.map((item) =>
      item.kind === 'order'
        ? item.order.bytes
        : item.kind === 'read'
          ? getRequest(item.path)
          : encodeRequest({ method: 'POST', target: '/account/order', headers: [['Authorization', `Bearer ${trader.token}`], ['Content-Type', 'application/json']], body: Buffer.from('{not json'), keepAlive: true }),
    );
    // Random cuts: each write carries one or more consecutive requests.
    const writes: Buffer[] = [];
    for (let i = 0; i < bytes.length; ) {
      const take = 1 + Math.floor(rand() * (bytes.length - i));
      writes.push(Buffer.concat(bytes.slice(i, i + take)));
      i += take;
    }
    const hangUpAfter = rand() < 0.2 ? 1 + Math.floor(rand() * count) : undefined;
    const run = await pipeline(port, writes, { expect: count, timeoutMs: 5_000, gapMs: Math.floor(rand() * 3), hangUpAfter });
    sent += count;
    answered += run.responses.length;
    if (run.responses.length < count && hangUpAfter === undefined) assert.ok(run.closed, `round ${round}: unanswered requests on an open connection`);
    run.responses.forEach((r, i) => {
      const item = items[i];
      if (item.kind === 'read') assert.equal(r.body.toString(), `Route not found: ${item.path}`, `round ${round}: answer ${i} out of order`);
      else if (item.kind === 'bad') assert.equal(r.status, 400, `round ${round}: answer ${i} out of order`);
    });
    const ordersWithAnswers = items.flatMap((item, i) => (item.kind === 'order' ? [{ order: item.order, answer: run.responses[i] }] : []));
    const answeredOrders = ordersWithAnswers.filter((o) => o.answer !== undefined);
    // Answered orders come first in `checkOrders`' view: the answered ones are a prefix of this round's orders.
    await checkOrders(
      trader,
      ordersWithAnswers.map((o) => o.order),
      answeredOrders.map((o) => o.answer!),
      hangUpAfter !== undefined,
    );
    await new Promise((r) => setTimeout(r, 40)); // stay inside the account's 200 requests/s
  }
  t.diagnostic(`${sent} pipelined requests, ${answered} answered before a close`);
});
