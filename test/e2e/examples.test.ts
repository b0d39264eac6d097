/**
 * What a new user runs first works (issue 14, item 10 and "the README's five-step client works
 * when followed literally"): examples/first-order.ts, examples/two-sided.ts and the code block
 * of README's "A client in five steps", each run as its own process, as a user would, against
 * a real exchange; what they did is then checked through the API with the same wallets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey } from 'viem/accounts';
import { startTestExchange, Trader } from './harness.ts';
import { ok, sub } from '../harness/api-helpers.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const ex = await startTestExchange();

/** `node --import tsx FILE ARGS` from the repository root, as the README says; its output lines. */
async function run(file: string, args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file, ...args], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 });
  return stdout.trim().split('\n');
}

test('examples/first-order.ts logs in, takes the faucet, places, lists and cancels an order', async () => {
  const key = generatePrivateKey();
  assert.ok(readFileSync(join(ROOT, 'examples/first-order.ts'), 'utf8').trimEnd().split('\n').length < 60, 'under 60 lines');
  const lines = await run('examples/first-order.ts', [ex.url], { PRIVATE_KEY: key });
  const orderId = /^placed (0x[0-9a-f]{16}) BTC-USD-PERP 0\.0001 @ \S+ new$/.exec(lines[1])?.[1];
  assert.ok(orderId !== undefined, `placed a resting order: ${lines.join(' | ')}`);
  assert.match(lines[2], new RegExp(`^open orders .*${orderId}`), 'listed it');
  assert.equal(lines[3], `cancelled ${orderId} cancelled`);
  // The same wallet, through the API: funded by the faucet, its order cancelled.
  const me = await new Trader(ex, key).login();
  assert.equal(lines[0], `logged in as ${me.address}`);
  assert.equal(ok(await me.get(`/account/order?orderId=${orderId}`)).status, 'cancelled');
  assert.equal(ok(await me.get(`/account/balance?${sub(me)}`)).collateral, '10000');
});

test('examples/two-sided.ts: a maker and a taker make trades, and each holds the position they add up to', async () => {
  const makerKey = generatePrivateKey();
  const takerKey = generatePrivateKey();
  const lines = await run('examples/two-sided.ts', [ex.url, '3'], { MAKER_KEY: makerKey, TAKER_KEY: takerKey });
  assert.equal(lines.filter((l) => /^trade \d: .* taker order filled$/.test(l)).length, 3, lines.join('\n'));
  const maker = await new Trader(ex, makerKey).login();
  const taker = await new Trader(ex, takerKey).login();
  const position = async (t: Trader) => ok(await t.get(`/account/positions?${sub(t)}`)).positions.find((p: { symbol: string }) => p.symbol === 'BTC-USD-PERP')?.quantity;
  assert.deepEqual([await position(maker), await position(taker)], ['-0.0003', '0.0003']);
  assert.equal(ok(await taker.get(`/account/fills?${sub(taker)}`)).length, 3);
  assert.match(lines.at(-1)!, /^taker 0x[0-9a-fA-F]{40}: 3 fills, position 0\.0003 BTC-USD-PERP$/);
});

test('examples/two-sided.ts on a shared book: a better ask resting below is bought instead, and the example says so and takes its own asks off the book', async () => {
  const other = await new Trader(ex, generatePrivateKey()).login();
  await other.fund('100000');
  const index = Number(ok(await other.get('/price?symbol=BTC-USD-PERP')).prices[0].indexPrice);
  const below = ok(await other.place({ price: String(Math.floor(index * 0.998)), quantity: '-0.0010', postOnly: true }))[0];
  const makerKey = generatePrivateKey();
  const lines = await run('examples/two-sided.ts', [ex.url, '3'], { MAKER_KEY: makerKey, TAKER_KEY: generatePrivateKey() });
  const notReached = lines.filter((l) => /^trade \d: maker 0x[0-9a-f]{16} sold 0 \(a better ask was bought first\), then cancelled, .* taker order filled$/.test(l));
  assert.equal(notReached.length, 3, lines.join('\n'));
  const maker = await new Trader(ex, makerKey).login();
  const open = ok(await maker.get(`/account/orders?${sub(maker)}&status=open`));
  assert.deepEqual([...open.asks, ...open.bids], [], 'the example left its asks on the book');
  await other.send('DELETE', `/account/order?orderId=${below.orderId}`);
});

/** The code block under README's "A client in five steps", exactly as written there. */
function readmeClient(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### A client in five steps'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code !== undefined, 'the README has the five steps as code');
  return code;
}

test("README's five-step client, followed literally, places an order", async (t) => {
  // Saved as a .ts file in the repository's folder, as the README says (ignored by git, removed after).
  const file = join(ROOT, `.readme-five-steps-${process.pid}.ts`);
  t.after(() => rmSync(file, { force: true }));
  writeFileSync(file, readmeClient());
  const [status, ...rest] = (await run(file, [], { EXCHANGE_URL: ex.url })).join('\n').split(' ');
  assert.equal(status, '200', rest.join(' '));
  const [order] = JSON.parse(rest.join(' '));
  assert.deepEqual([order.symbol, order.price, order.quantity, order.status], ['BTC-USD-PERP', '90000', '0.001', 'new']);
});
