/**
 * GET /openapi.json as a contract a generated client relies on: across a session that touches
 * every route — successes and the refusals a user meets (bad input, no token, not delegated,
 * unknown market or order, spent nonce, bad signature…) — every real reply is one the document
 * declares for its operation: its status is listed, a success body validates against the
 * declared schema with no undeclared field, and an error's plain text is one of the texts listed
 * under that status (a `<name>` in a listed text stands for any value).
 *
 * Why a session and not one reply per route: a client generated from the document (openapi-
 * generator, orval) rejects a body with a field it does not know or of another type, and shows
 * an error it cannot match; each kind of order, fill and refusal fills other fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader, type ApiClient, type Reply } from '../harness/traders.ts';
import { BTC, delegate, revoke, signedDelegation, signedMarginUpdate, signedTransfer, sub } from '../harness/api-helpers.ts';
import { caughtUp, openPosition, setMark, submit, submitBatch } from '../harness/conditional-helpers.ts';

interface Exchange {
  method: string;
  target: string;
  status: number;
  contentType: string;
  text: string;
}

/** The operation of the document that answers `method target` (path templates matched segment by segment). */
function operationOf(document: any, method: string, target: string): { path: string; op: any } | undefined {
  const path = target.split('?')[0];
  for (const [template, ops] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    const pattern = new RegExp('^' + template.replace(/\{\w+\}/g, '[^/]+') + '$');
    if (pattern.test(path) && ops[method.toLowerCase()]) return { path: template, op: ops[method.toLowerCase()] };
  }
  return undefined;
}

/**
 * Every object schema closed to fields it does not declare (`unevaluatedProperties: false`
 * unless it says otherwise): a reply's extra field fails, as it does in a strict client; an
 * object declared without its properties declares none.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)])) : closed(v)]));
  if ((copy.properties !== undefined || copy.type === 'object') && copy.additionalProperties === undefined && copy.unevaluatedProperties === undefined) copy.unevaluatedProperties = false;
  return copy;
}

/** A listed error text as a pattern: `<name>` is any value, `…` any rest. */
const textPattern = (listed: string) => new RegExp('^' + listed.split(/(<[^>]+>|…)/).map((part) => (/^<[^>]+>$|^…$/.test(part) ? '[\\s\\S]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('') + '$');

/**
 * The success-body validators of `document`, one per operation, compiled as they are first
 * needed by one Ajv holding the components (the meta-schema and each component compiled once).
 */
function validatorsOf(document: any): (key: string, schema: unknown) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true }).addSchema(closed(document.components.schemas) as object, 'doc');
  const compiled = new Map<string, ValidateFunction>();
  return (key, schema) => {
    if (!compiled.has(key)) compiled.set(key, ajv.compile(closed(rewriteRefs(schema)) as object));
    return compiled.get(key)!;
  };
}

/** What is wrong with one reply against the document ('' when it conforms). */
function violation(document: any, validatorOf: ReturnType<typeof validatorsOf>, x: Exchange): string {
  const found = operationOf(document, x.method, x.target);
  if (found === undefined) return 'no such operation in the document';
  const declared = found.op.responses[String(x.status)];
  if (declared === undefined) return `status ${x.status} is not declared (declared: ${Object.keys(found.op.responses).join(', ')}); body ${JSON.stringify(x.text.slice(0, 200))}`;
  if (x.status === 200) {
    const [type, content] = Object.entries(declared.content as Record<string, any>)[0];
    if (!x.contentType.startsWith(type)) return `content type ${x.contentType}, declared ${type}`;
    if (type !== 'application/json') return '';
    const key = `${x.method} ${found.path}`;
    const validate = validatorOf(key, content.schema);
    return validate(JSON.parse(x.text)) ? '' : `body does not match the schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`;
  }
  const texts = Object.values((declared.content?.['text/plain']?.examples ?? {}) as Record<string, { value: string }>).map((e) => e.value);
  if (!x.contentType.startsWith('text/plain')) return `an error body of type ${x.contentType}`;
  return texts.some((t) => textPattern(t).test(x.text)) ? '' : `text ${JSON.stringify(x.text)} is not among the ${x.status} texts declared: ${JSON.stringify(texts)}`;
}

/** `#/components/schemas/X` → `doc#/X`: the components are added as one schema named `doc`. */
function rewriteRefs(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, '"doc#/'));
}

/** `inner`, recording every request and reply of the session. */
function recording(inner: ApiClient, log: Exchange[]): ApiClient {
  const keep = (method: string, target: string) => (r: Reply) => {
    log.push({ method, target, status: r.status, contentType: r.headers.get('content-type') ?? '', text: r.text });
    return r;
  };
  return {
    url: inner.url,
    request: (method, path, body, headers) => inner.request(method, path, body, headers).then(keep(method, path)),
    operator: (method, path, body) => inner.operator(method, path, body).then(keep(method, path)),
  };
}

test('every reply of a session over every route is one the OpenAPI document declares', async () => {
  const ex = await startInProcessExchange();
  const log: Exchange[] = [];
  const client = recording(ex, log);
  const document = (await client.request('GET', '/openapi.json')).json();

  // Public reads, good and bad.
  for (const path of ['/config', '/markets', '/time', '/health', '/ready', '/cluster', '/asyncapi.json', `/book/${BTC}?depth=3`, '/book/BTC?tickSize=1', `/orderbook?symbol=${BTC}`,
    `/candles/${BTC}?interval=1m&limit=5`, `/trades/${BTC}?limit=5`, '/price', `/price?symbol=${BTC}`, '/summary', `/summary?symbol=${BTC}`,
    `/book/${BTC}?depth=0`, '/book/NOPE-USD-PERP', `/book/${BTC}?tickSize=0.3`, `/book/${BTC}?dept=5`, '/candles/NOPE?interval=1m', `/candles/${BTC}?interval=7m`, `/candles/${BTC}?from=10&to=5`,
    `/trades/${BTC}?limit=0`, '/trades/NOPE-USD-PERP', `/trades/${BTC}?from=-1`, '/price?symbol=NOPE', '/summary?symbol=NOPE', '/orderbook']) {
    await client.request('GET', path);
  }

  // Login, good and bad.
  const [alice, bob, carol] = [new Trader(client), new Trader(client), new Trader(client)];
  await client.request('POST', '/auth/challenge', { address: 'nope' });
  const challenge = (await client.request('POST', '/auth/challenge', { address: alice.wallet.address })).json();
  await client.request('POST', '/auth/login', { message: challenge.message, signature: await bob.wallet.signMessage({ message: challenge.message }) });
  await client.request('POST', '/auth/login', { message: challenge.message + 'x', signature: await alice.wallet.signMessage({ message: challenge.message + 'x' }) });
  await client.request('POST', '/auth/login', { message: 1 });
  for (const t of [alice, bob, carol]) await t.login();
  for (const t of [alice, bob]) await t.fund('100000');

  // Account reads, good and bad.
  for (const path of ['/account/stats', '/account/balance', '/account/positions', '/account/fills', '/account/margin', '/account/nonce', '/account/transfer/history', '/account/delegates', '/account/signers', '/account/orders']) {
    await alice.get(`${path}?${sub(alice)}`);
    await bob.get(`${path}?${sub(alice)}`);
    await alice.get(`${path}?${sub(alice)}&bogus=1`);
    await alice.get(`${path}?account=${alice.address}&subaccountIndex=-1`);
    await client.request('GET', `${path}?${sub(alice)}`);
    await client.request('GET', `${path}?${sub(alice)}`, undefined, { authorization: 'Bearer not.a.jwt' });
  }
  await carol.get(`/account/stats?${sub(carol)}`);
  await alice.get(`/account/positions?${sub(alice)}&symbol=NOPE`);
  await alice.get(`/account/fills?${sub(alice)}&limit=0`);
  await alice.get(`/account/orders?${sub(alice)}&limit=501`);
  await alice.get(`/account/orders?${sub(alice)}&createdFrom=1&updatedFrom=1`);
  await alice.get(`/account/orders?${sub(alice)}&status=nope`);
  await alice.get(`/account/transfer/history?${sub(alice)}&direction=sideways`);

  // Orders of every kind, fills, and their refusals.
  await setMark(ex, '95000');
  await caughtUp(ex);
  await openPosition(alice, bob, '0.1', '95000');
  const resting = (await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.01', clientId: 'rest-1' })).json()[0];
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.02', clientId: 'rest-1' });
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.01', period: 1000 });
  await submit(alice, { orderType: 'limit', price: '90000.05', quantity: '0.01' });
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.01', symbol: 'NOPE-USD-PERP' });
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.01', postOnly: true, ioc: true });
  await submit(alice, { orderType: 'limit', price: '1', quantity: '-1000', reduceOnly: true, ioc: true });
  const forged = await alice.signedOrder({ orderType: 'limit', price: '90000', quantity: '0.01' }, bob.wallet);
  await alice.send('POST', '/account/order', forged);
  await alice.send('POST', '/account/order', await alice.signedOrder({ orderType: 'limit', price: '90000', quantity: '0.01', nonce: resting.nonce }));
  await bob.send('POST', '/account/order', await alice.signedOrder({ orderType: 'limit', price: '90000', quantity: '0.01' }));
  await alice.send('POST', '/account/order', '{"account":');
  const stop = (await submit(alice, { orderType: 'stopLoss', price: '80000', quantity: '-0.05', triggerPrice: '85000', reduceOnly: true })).json()[0];
  await submit(alice, { orderType: 'takeProfit', price: '99000', quantity: '-0.05', triggerPrice: '99000', reduceOnly: true });
  await submit(alice, { orderType: 'trailingStop', price: '80000', quantity: '-0.05', trailingPercent: '0.05', reduceOnly: true });
  await submit(alice, { orderType: 'stopLoss', price: '80000', quantity: '-0.05', triggerPrice: '96000', reduceOnly: true });
  await submit(alice, { orderType: 'stopLoss', price: '80000', quantity: '-0.05', reduceOnly: true });
  await submit(alice, { orderType: 'trailingStop', price: '80000', quantity: '-0.05', trailingPercent: '2', reduceOnly: true });
  await submitBatch(alice, [0, 1, 2].map(() => ({ orderType: 'twap', price: '90000', quantity: '0.001', period: 60_000 })));
  await submitBatch(alice, [0, 1].map(() => ({ orderType: 'iceberg', price: '90000', quantity: '0.001' })));
  await submitBatch(alice, [{ orderType: 'takeProfit', price: '0.1', quantity: '-0.1', triggerPrice: '99500', ioc: true, reduceOnly: true }, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '90500', ioc: true, reduceOnly: true }]);
  await submitBatch(alice, [{ orderType: 'twap', price: '90000', quantity: '0.001', period: 0 }]);
  await submitBatch(alice, [{ orderType: 'limit', price: '90000', quantity: '0.001', subaccountIndex: 1 }, { orderType: 'limit', price: '90000', quantity: '0.001' }]);
  await alice.send('POST', '/account/orders', { orders: [] });
  await alice.get(`/account/order?orderId=${resting.orderId}`);
  await alice.get(`/account/order?clientId=rest-1&account=${alice.address}`);
  await alice.get('/account/order?orderId=0xffffffffffffffff');
  await alice.get('/account/order');
  await bob.get(`/account/order?orderId=${resting.orderId}`);
  await alice.get(`/account/orders?${sub(alice)}&status=active&orderType=stopLoss,twap`);
  await alice.get(`/account/fills?${sub(alice)}`);
  await client.request('GET', `/trades/${BTC}`);
  await client.request('GET', `/candles/${BTC}?interval=1m`);
  await alice.send('DELETE', `/account/order?orderId=${stop.orderId}`);
  await alice.send('DELETE', `/account/order?orderId=${stop.orderId}`);
  await bob.send('DELETE', `/account/order?orderId=${resting.orderId}`);
  await alice.send('DELETE', '/account/order?orderId=0xffffffffffffffff');
  await alice.send('POST', '/account/orders/cancel', { orderIds: [resting.orderId, '0xffffffffffffffff'], clientIds: ['nope'] });
  await alice.send('POST', '/account/orders/cancel', { orderIds: 'x' });
  const filled = (await submit(bob, { orderType: 'limit', price: '95000', quantity: '-0.01', ioc: true })).json()[0];
  await alice.send('DELETE', `/account/order?orderId=${filled.orderId}`);
  await bob.send('DELETE', `/account/order?orderId=${filled.orderId}`);
  const parent = (await submit(bob, { orderType: 'limit', price: '90000', quantity: '0.01' })).json()[0];
  const pair = (legs: string | null, trader = bob) => submitBatch(trader, [
    { orderType: 'takeProfit', price: '0.1', quantity: '-0.01', triggerPrice: '99500', ioc: true, reduceOnly: true, parentOrderId: legs },
    { orderType: 'stopLoss', price: '0.1', quantity: '-0.01', triggerPrice: '85000', ioc: true, reduceOnly: true, parentOrderId: legs },
  ]);
  await pair(parent.orderId);
  await pair('0x00000100000fffff');
  await pair(parent.orderId, alice);
  await pair(null, carol);
  await submitBatch(bob, [{ orderType: 'takeProfit', price: '0.1', quantity: '-0.01', triggerPrice: '85000', ioc: true, reduceOnly: true }, { orderType: 'stopLoss', price: '0.1', quantity: '-0.01', triggerPrice: '99500', ioc: true, reduceOnly: true }]);
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.01', expiresAt: 1 });
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.00001' });
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0' });
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.01', subaccountIndex: 7 });
  await submit(alice, { orderType: 'LIMIT', price: '90000', quantity: '0.01' });
  await submit(alice, { orderType: 'unsupported', price: '90000', quantity: '0.01' });
  await submit(carol, { orderType: 'limit', price: '90000', quantity: '1' });
  await submit(alice, { orderType: 'limit', price: '90000', quantity: '0.01', originatorFee: 10 ** 9 });
  await alice.get(`/account/order?clientId=rest-1`);
  await alice.get(`/account/fills?${sub(alice)}&from=5&to=1`);
  await alice.get(`/account/fills?${sub(alice)}&from=1.5`);
  await alice.get(`/account/fills?${sub(alice)}&limit=5001`);
  await client.request('GET', `/trades/${BTC}?limit=5001`);
  await client.request('GET', `/candles/${BTC}?limit=0`);
  await client.request('GET', `/candles/${BTC}?from=abc`);
  await client.request('GET', `/book/${BTC}?depth=abc`);
  await alice.get(`/account/orders?${sub(alice)}&orderType=nope`);
  await alice.get(`/account/orders?${sub(alice)}&createdFrom=-1`);
  await alice.get(`/account/nonce?${sub(alice)}&signer=nope`);
  await alice.send('POST', '/account/delegates', await signedDelegation(alice, '0x0000000000000000000000000000000000000000', 'trade'));
  await alice.send('POST', '/account/delegates', await signedDelegation(alice, alice.address, 'trade'));
  await alice.send('POST', '/account/delegates', await signedDelegation(alice, bob.address, '', 'remove'));
  await client.request('POST', '/auth/login', { message: challenge.message, signature: await alice.wallet.signMessage({ message: challenge.message }) });
  await client.request('POST', '/auth/login', { message: challenge.message, signature: await alice.wallet.signMessage({ message: challenge.message }) });
  await alice.send('DELETE', `/account/orders?${sub(alice)}`);
  await alice.send('DELETE', `/account/orders?${sub(alice)}&symbol=NOPE`);

  // Signed account writes, good and bad.
  await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: carol.address, amount: '10' }));
  await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: carol.address, amount: '100000000' }));
  await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: alice.address, amount: '10' }));
  await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: carol.address, amount: '0.5' }));
  await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: carol.address, amount: '10', expiresAt: 1 }));
  await carol.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: carol.address, amount: '10' }));
  await client.request('POST', '/account/transfer', await signedTransfer(alice, { accountTo: carol.address, amount: '10' }));
  await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: 'ETH-USD-PERP', isolated: false, margin: '0.2' }));
  await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: 'ETH-USD-PERP', isolated: false, margin: '0.2', account: carol.address }));
  await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: 'NOPE-USD-PERP', isolated: false, margin: '0.2' }));
  await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: 'ETH-USD-PERP', isolated: false, margin: '7' }));
  await delegate(alice, carol, 'read');
  await carol.get(`/account/orders?${sub(alice)}`);
  await carol.send('POST', '/account/order', await alice.signedOrder({ orderType: 'limit', price: '90000', quantity: '0.01' }, carol.wallet));
  await carol.send('POST', '/account/delegates', await signedDelegation(alice, carol.address, 'trade', 'add', 0, carol.wallet));
  await alice.send('POST', '/account/delegates', await signedDelegation(alice, carol.address, 'fly'));
  await alice.get(`/account/delegates?${sub(alice)}`);
  await revoke(alice, carol);
  await alice.send('POST', '/faucet', { account: alice.address, subaccountIndex: 0 });
  await alice.send('POST', '/faucet', { account: bob.address, subaccountIndex: 0 });

  // The operator API.
  await client.operator('POST', '/operator/deposit', { account: carol.address, subaccountIndex: 0, amount: '5' });
  await client.operator('POST', '/operator/withdraw', { account: carol.address, subaccountIndex: 0, amount: '1' });
  await client.operator('POST', '/operator/withdraw', { account: carol.address, subaccountIndex: 0, amount: '1000000' });
  await client.operator('POST', '/operator/index-price/release', { symbol: BTC });
  await client.operator('POST', '/operator/index-price', { symbol: 'NOPE', price: '1' });
  await client.operator('GET', '/operator/state-hash');
  await client.request('GET', '/operator/state-hash');

  const validatorOf = validatorsOf(document);
  const problems = log.map((x) => [x, violation(document, validatorOf, x)] as const).filter(([, v]) => v !== '').map(([x, v]) => `${x.method} ${x.target.slice(0, 120)} → ${x.status}: ${v}`);
  if (process.env.CONTRACT_LOG) for (const x of log) console.log(`${x.method} ${x.target.slice(0, 140)} → ${x.status} ${x.text.slice(0, 300)}`);
  assert.ok(log.length > 150, `the session made ${log.length} requests`);
  assert.deepEqual(problems, []);
});
