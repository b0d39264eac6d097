/**
 * Signing what you send (issue 14, item 8). The signed Order message is not the body itself
 * (orderType in lowerCamel, flags top-level, null strings as ""); the orderType as the body
 * writes it ('Limit') is accepted too, since it names the same order. A client that signs
 * anything else than the body gets `Invalid signature` — the spec's text, unchanged — and can
 * see why: the refusal carries `X-Signed-Message` (what the server hashed) and
 * `X-Signature-Recovered` (whom the signature recovered to), and GET /config publishes the
 * mapping with a worked example that a client can follow to succeed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader, type Reply, fundedTraders } from '../harness/traders.ts';
import { assertError, ok, signedDelegation, signedMarginUpdate, signedTransfer } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const config = (await ex.request('GET', '/config')).json();
const { domain, types } = config.eip712;
const newTrader = async () => {
  const [t] = await fundedTraders(ex, 1, '100000');
  return t;
};

/** The diagnostic headers of a refusal: the message parsed, and the recovered address (lowercase) or undefined. */
function diagnostics(reply: Reply): { message: Record<string, unknown>; recovered: string | undefined } {
  assertError(reply, 400, 'Invalid signature');
  const message = reply.headers.get('x-signed-message');
  assert.ok(message !== null, 'an Invalid signature answer says what the server hashed');
  return { message: JSON.parse(message), recovered: reply.headers.get('x-signature-recovered')?.toLowerCase() };
}

/** The lowerCamel spellings the orderType rule lists. */
const LOWER_CAMEL = ['limit', 'twap', 'takeProfit', 'stopLoss', 'trailingStop', 'iceberg', 'unsupported'];

/**
 * A client that follows GET /config's `signing` rules word for word, written here from the
 * published rules (not from the server's code): the body's fields, orderType in the rule's
 * lowerCamel spelling, the flags lifted to the top, null strings as "" and a null period as 0.
 */
function messageByPublishedRules(body: Record<string, any>): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  for (const { name } of types.Order as { name: string }[]) {
    if (name in body.flags) message[name] = body.flags[name];
    else if (name === 'orderType') message[name] = LOWER_CAMEL.find((t) => t.toLowerCase() === body.orderType.toLowerCase());
    else if (name === 'period') message[name] = body.period ?? 0;
    else message[name] = body[name] ?? '';
  }
  return message;
}

const signOrder = (wallet: Trader['wallet'], message: Record<string, unknown>) => wallet.signTypedData({ domain, types: { Order: types.Order }, primaryType: 'Order', message });

test("GET /config publishes the body → message rules with a worked example, and the example follows the rules", () => {
  const { rules, example } = config.signing.Order;
  for (const phrase of ['lowerCamel', 'top-level', '""', 'period', 'verbatim']) assert.ok(rules.some((r: string) => r.includes(phrase)), `a rule says ${phrase}`);
  assert.equal(example.body.orderType, 'Limit', 'the example shows the spec\'s spelling in the body');
  assert.equal(example.message.orderType, 'limit', '… and the lowerCamel one in the message');
  assert.deepEqual(example.message, messageByPublishedRules(example.body), 'the rules, followed literally, give the published message');
});

test("a wallet that signs orderType as its body writes it ('Limit', the spec's samples' spelling) is accepted, as is the published lowerCamel", async () => {
  // A viem client that signs the body it sends (the flags where the Order type puts them, nulls
  // as "") writes orderType as the spec's samples do; it names the same order as "limit".
  const alice = await newTrader();
  for (const orderType of ['Limit', 'LIMIT', 'limit']) {
    const body = alice.orderBody({ orderType, price: '41000', quantity: '0.001' });
    const asWritten = { ...messageByPublishedRules(body), orderType };
    const placed = ok(await alice.send('POST', '/account/order', { ...body, signatures: [await signOrder(alice.wallet, asWritten)] }));
    assert.equal(placed[0].orderType, 'limit', orderType);
  }
  // Another type's spelling is another order: a signature over "Twap" does not place a limit order.
  const body = alice.orderBody({ orderType: 'Limit', price: '41000', quantity: '0.001' });
  const { message } = diagnostics(await alice.send('POST', '/account/order', { ...body, signatures: [await signOrder(alice.wallet, { ...messageByPublishedRules(body), orderType: 'Twap' })] }));
  assert.equal(message.orderType, 'limit', 'the diagnostics show the published message');
});

test("a client that signs a decimal other than the body's ('41000.0' for '41000') gets Invalid signature, and the headers show the message hashed and a stranger's address", async () => {
  const alice = await newTrader();
  const body = alice.orderBody({ orderType: 'Limit', price: '41000', quantity: '0.001', clientId: 'signed-as-sent' });
  const reformatted = { ...messageByPublishedRules(body), price: '41000.0' };
  const refused = await alice.send('POST', '/account/order', { ...body, signatures: [await signOrder(alice.wallet, reformatted)] });
  const { message, recovered } = diagnostics(refused);
  assert.equal(message.price, '41000', 'decimals are hashed verbatim');
  assert.equal(message.orderType, 'limit', 'the server hashed orderType in lowerCamel');
  assert.deepEqual(Object.keys(message), (types.Order as { name: string }[]).map((f) => f.name), 'exactly the Order type\'s fields, in its order');
  assert.equal(message.ioc, false, 'flags are top-level in the message');
  assert.ok(recovered !== undefined && recovered !== alice.address, 'the signature recovered to some other address');
  // The client fixes its message from what the header shows: signing it is accepted.
  // (The refused request spent no nonce: the same body goes again.)
  const fixed = await alice.send('POST', '/account/order', { ...body, signatures: [await signOrder(alice.wallet, message)] });
  assert.equal(fixed.status, 200, fixed.text);
});

test("a client following /config's mapping succeeds, whatever case it sends and with null optional fields; an accepted order carries no diagnostics", async () => {
  const alice = await newTrader();
  for (const orderType of ['Limit', 'limit', 'LIMIT']) {
    const body = alice.orderBody({ orderType, price: '40000.50', quantity: '0.001' });
    const reply = await alice.send('POST', '/account/order', { ...body, signatures: [await signOrder(alice.wallet, messageByPublishedRules(body))] });
    ok(reply);
    assert.equal(reply.headers.get('x-signed-message'), null);
    assert.equal(reply.headers.get('x-signature-recovered'), null);
  }
});

test('a wrong key shows its own address in X-Signature-Recovered, on orders, batches, transfers, margin updates and delegation requests', async () => {
  const alice = await newTrader();
  const stranger = privateKeyToAccount(generatePrivateKey());
  const strangerAddress = stranger.address.toLowerCase();
  const order = await alice.signedOrder({ price: '41000', quantity: '0.001' }, stranger);
  let seen = diagnostics(await alice.send('POST', '/account/order', order));
  assert.equal(seen.recovered, strangerAddress);
  assert.equal(seen.message.nonce, order.nonce);

  seen = diagnostics(await alice.send('POST', '/account/orders', { orders: [order, await alice.signedOrder({ price: '41000', quantity: '0.001' })] }));
  assert.equal(seen.recovered, strangerAddress, 'a batch names the order signed by the stranger');
  const pair = [
    await alice.signedOrder({ orderType: 'takeProfit', price: '50000', quantity: '-0.001', triggerPrice: '50000' }),
    await alice.signedOrder({ orderType: 'stopLoss', price: '30000', quantity: '-0.001', triggerPrice: '30000' }, stranger),
  ];
  seen = diagnostics(await alice.send('POST', '/account/orders', { orders: pair }));
  assert.equal(seen.recovered, strangerAddress, 'a TP/SL pair names its wrongly signed order');
  assert.equal(seen.message.orderType, 'stopLoss');

  const bob = await new Trader(ex).login();
  seen = diagnostics(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount: '5' }, stranger)));
  assert.deepEqual([seen.recovered, seen.message.amount, seen.message.accountTo], [strangerAddress, '5', bob.address]);
  seen = diagnostics(await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: 'BTC-USD-PERP', isolated: true, margin: '0.5' }, stranger)));
  assert.deepEqual([seen.recovered, seen.message.margin], [strangerAddress, '0.5']);
  seen = diagnostics(await alice.send('POST', '/account/delegates', await signedDelegation(alice, bob.address, 'read', 'add', 0, stranger)));
  assert.deepEqual([seen.recovered, seen.message.delegate], [strangerAddress, bob.address]);
});

test('a signature that recovers no address at all: the message is shown, no recovered address', async () => {
  const alice = await newTrader();
  const body = { ...(await alice.signedOrder({ price: '41000', quantity: '0.001' })), signatures: [`0x${'00'.repeat(65)}`] };
  const seen = diagnostics(await alice.send('POST', '/account/order', body));
  assert.equal(seen.recovered, undefined);
  assert.equal(seen.message.account, alice.address);
});

test('the OpenAPI text of POST /account/order carries the rules and the worked example, and documents the headers', () => {
  return ex.request('GET', '/openapi.json').then((r) => {
    const post = r.json().paths['/account/order'].post;
    assert.ok(post.description.includes(JSON.stringify(config.signing.Order.example.message)), 'the example message is in the route text');
    assert.ok(post.description.includes('lowerCamel'));
    assert.deepEqual(Object.keys(post.responses['400'].headers).sort(), ['X-Signature-Recovered', 'X-Signed-Message']);
  });
});
