/**
 * Black-box tests of the /account/* reads and signed writes on the in-process exchange (test/harness/in-process-exchange): stats,
 * positions, fills, balance, margin (GET and a signed MarginUpdate), transfer (a signed Transfer)
 * and its history, delegates, signers and nonce — with the spec's refusal texts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import {
  ADDRESS,
  assertDecimal,
  assertError,
  assertMillisNow,
  BTC,
  delegate,
  ETH,
  isInteger,
  ok,
  signedDelegation,
  signedMarginUpdate,
  signedTransfer,
  sub,
  UNSIGNED_DECIMAL,
} from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const login = () => new Trader(ex).login();
const [alice, bob, carol, erin, dave] = await Promise.all([login(), login(), login(), login(), login()]);
await alice.fund('100000');
await bob.fund('100000');
// Carol trades and reads for Alice's subaccount 0, Erin only reads it, Dave is a stranger.
await delegate(alice, carol, 'trade,read');
await delegate(alice, erin, 'read');

const BOB_SELL_0_5_BTC_AT_95000 = { price: '95000', quantity: '-0.5' };
const ALICE_BUY_0_5_BTC_AT_95000 = { price: '95000', quantity: '0.5' };

const STATS_FIELDS = ['accountValue', 'crossEquity', 'crossLeverage', 'crossMarginRatio', 'crossMarginUsage', 'freeCollateral', 'freeCollateralCross', 'initialMarginRequirement', 'maintMargin', 'upnl'];
const FILL_STRING_FIELDS = ['price', 'quantity', 'symbol', 'orderId', 'realizedExposure', 'realizedFunding', 'realizedPnl', 'realizedPoints'];

test('GET /account/stats: every spec field a decimal string, plus account and subaccountIndex', async () => {
  const stats = ok(await alice.get(`/account/stats?${sub(alice)}`));
  assert.equal(stats.account, alice.address);
  assert.equal(stats.subaccountIndex, 0);
  for (const f of STATS_FIELDS) assertDecimal(stats[f], `stats.${f}`);
  assert.deepEqual(Object.keys(stats).sort(), ['account', 'subaccountIndex', ...STATS_FIELDS].sort());
  assert.equal(stats.accountValue, '100000');
  assert.equal(stats.freeCollateral, '100000');
  assert.equal(stats.upnl, '0');
  assertError(await alice.get(`/account/stats?${sub(alice, 5)}`), 404, 'Account not found');
  assertError(await dave.get(`/account/stats?${sub(alice)}`), 403, 'Delegation not allowed for request');
  assertError(await ex.request('GET', `/account/stats?${sub(alice)}`), 401, 'Please add the JWT token to the header');
  assertError(await alice.get(`/account/stats?account=${alice.address}&subaccountIndex=x`), 400, 'Invalid subaccount index');
  assertError(await alice.get(`/account/stats?account=${alice.address}&subAccountIndex=0`), 400, 'Unknown query parameter subAccountIndex; allowed: account, subaccountIndex');
  assertError(await alice.get(`/account/stats?account=0x12&subaccountIndex=0`), 400, 'account must be a 0x-prefixed 20-byte hex address');
});

test('GET /account/positions after a fill: the spec fields, quantity signed, updatedAt in ms; symbol filter', async () => {
  ok(await bob.place(BOB_SELL_0_5_BTC_AT_95000));
  const [taken] = ok(await alice.place(ALICE_BUY_0_5_BTC_AT_95000));
  assert.equal(taken.status, 'filled');

  const { positions } = ok(await alice.get(`/account/positions?${sub(alice)}`));
  assert.equal(positions.length, 1);
  const p = positions[0];
  for (const f of ['account', 'basis', 'fees', 'funding', 'margin', 'quantity', 'subaccountIndex', 'symbol', 'updatedAt']) assert.ok(f in p, `position.${f}`);
  assert.equal(p.account, alice.address);
  assert.equal(p.subaccountIndex, 0);
  assert.equal(p.symbol, BTC);
  assert.equal(p.quantity, '0.5');
  assert.equal(p.basis, '47500');
  assert.equal(p.fees, '23.75', 'taker fee 0.05 % of 47500');
  assert.equal(p.funding, '0');
  assert.equal(p.margin, '0');
  for (const f of ['basis', 'fees', 'funding', 'margin', 'quantity']) assertDecimal(p[f], `position.${f}`);
  assertMillisNow(p.updatedAt, 'position.updatedAt');
  const bobs = ok(await bob.get(`/account/positions?${sub(bob)}`)).positions;
  assert.deepEqual(bobs.map((x: any) => [x.quantity, x.basis, x.fees]), [['-0.5', '-47500', '-4.75']]);

  assert.deepEqual(ok(await alice.get(`/account/positions?${sub(alice)}&symbol=${BTC}`)).positions, positions);
  assert.deepEqual(ok(await alice.get(`/account/positions?${sub(alice)}&symbol=${ETH}`)).positions, []);
  assert.deepEqual(ok(await alice.get(`/account/positions?${sub(alice, 9)}`)).positions, []);
  assertError(await alice.get(`/account/positions?${sub(alice)}&symbol=NOPE-USD-PERP`), 404, 'Symbol not found');
  assertError(await dave.get(`/account/positions?${sub(alice)}`), 403, 'Delegation not allowed for request');

  const stats = ok(await alice.get(`/account/stats?${sub(alice)}`));
  for (const f of STATS_FIELDS) assertDecimal(stats[f], `stats.${f}`);
  assert.equal(stats.initialMarginRequirement, '950', '2 % of 47500');
  assert.equal(stats.maintMargin, '570', '1.2 % of 47500');
});

test('GET /account/fills: newest first, the spec fields, default limit 50, limit/from/to/symbol and their refusals', async () => {
  // Bob rests 60 asks in one batch; Alice's one buy takes them all: 60 fills more for her.
  const asks = [];
  for (let i = 0; i < 60; i++) asks.push(await bob.signedOrder({ price: (96000 + i / 10).toFixed(1), quantity: '-0.001' }));
  assert.equal(ok(await bob.send('POST', '/account/orders', { orders: asks.slice(0, 30) })).orders.length, 30);
  assert.equal(ok(await bob.send('POST', '/account/orders', { orders: asks.slice(30) })).orders.length, 30);
  await ex.advance(20);
  const mark = ex.now();
  await ex.advance(20);
  const [sweep] = ok(await alice.place({ price: '97000', quantity: '0.06' }));
  assert.equal(sweep.status, 'filled');

  const fills = ok(await alice.get(`/account/fills?${sub(alice)}`));
  assert.equal(fills.length, 50, 'default limit 50');
  for (const f of fills) {
    for (const field of FILL_STRING_FIELDS) assert.equal(typeof f[field], 'string', `fill.${field}`);
    for (const field of ['price', 'quantity', 'realizedExposure', 'realizedFunding', 'realizedPnl', 'realizedPoints']) assertDecimal(f[field], `fill.${field}`);
    assertMillisNow(f.time, 'fill.time');
    assert.equal(f.symbol, BTC);
  }
  for (let i = 1; i < fills.length; i++) assert.ok(fills[i - 1].time >= fills[i].time, 'newest first');
  assert.equal(fills[0].orderId, sweep.orderId);
  assert.equal(fills[0].quantity, '0.001');

  const all = ok(await alice.get(`/account/fills?${sub(alice)}&limit=5000`));
  assert.equal(all.length, 61);
  assert.equal(all.at(-1).price, '95000');
  assert.equal(all.at(-1).quantity, '0.5');
  assert.equal(ok(await alice.get(`/account/fills?${sub(alice)}&limit=1`)).length, 1);
  assert.equal(ok(await alice.get(`/account/fills?${sub(alice)}&from=${mark}&limit=100`)).length, 60);
  assert.deepEqual(ok(await alice.get(`/account/fills?${sub(alice)}&to=${mark}`)).map((f: any) => f.price), ['95000']);
  assert.equal(ok(await alice.get(`/account/fills?${sub(alice)}&symbol=${BTC}&limit=100`)).length, 61);
  assert.deepEqual(ok(await alice.get(`/account/fills?${sub(alice)}&symbol=${ETH}`)), []);
  assert.deepEqual(ok(await bob.get(`/account/fills?${sub(bob)}&limit=1`)).map((f: any) => f.quantity), ['-0.001']);
  assert.deepEqual(ok(await alice.get(`/account/fills?${sub(alice, 4)}`)), []);

  for (const n of ['0', '5001']) assertError(await alice.get(`/account/fills?${sub(alice)}&limit=${n}`), 400, `Limit must be between 1 and 5000, got ${n}`);
  assertError(await alice.get(`/account/fills?${sub(alice)}&symbol=NOPE-USD-PERP`), 404, 'Symbol not found');
  assertError(await alice.get(`/account/fills?${sub(alice)}&from=-1`), 400, 'from must be an integer >= 0 (milliseconds), got -1');
  assertError(await dave.get(`/account/fills?${sub(alice)}`), 403, 'Delegation not allowed for request');
});

test('GET /account/balance: collateral, holds, free collateral and value as decimal strings', async () => {
  const balance = ok(await alice.get(`/account/balance?${sub(alice)}`));
  assert.deepEqual(Object.keys(balance).sort(), ['account', 'accountValue', 'collateral', 'freeCollateral', 'freeCollateralCross', 'initialMarginRequirement', 'isolatedMargin', 'orderHolds', 'subaccountIndex', 'upnl']);
  assert.equal(balance.account, alice.address);
  assert.equal(balance.subaccountIndex, 0);
  for (const f of ['accountValue', 'collateral', 'freeCollateral', 'freeCollateralCross', 'initialMarginRequirement', 'isolatedMargin', 'orderHolds', 'upnl']) assertDecimal(balance[f], `balance.${f}`);
  assert.equal(balance.isolatedMargin, '0');
  assert.equal(balance.orderHolds, '0');
  assertError(await alice.get(`/account/balance?${sub(alice, 5)}`), 404, 'Account not found');
  assertError(await dave.get(`/account/balance?${sub(alice)}`), 403, 'Not delegated for account and subaccount');
  assert.equal(ok(await erin.get(`/account/balance?${sub(alice)}`)).collateral, balance.collateral, 'a read delegate reads it');
});

test('GET /account/margin and POST /account/margin with a signed MarginUpdate', async () => {
  const settings = ok(await alice.get(`/account/margin?${sub(alice)}`));
  assert.equal(settings.account, alice.address);
  assert.equal(settings.subaccountIndex, 0);
  assert.deepEqual(settings.markets.map((m: any) => m.symbol), [BTC, ETH, 'SOL-USD-PERP']);
  for (const m of settings.markets) {
    assert.equal(typeof m.isolated, 'boolean');
    assertDecimal(m.margin, 'margin', UNSIGNED_DECIMAL);
    assertDecimal(m.leverage, 'leverage', UNSIGNED_DECIMAL);
    assert.ok(isInteger(m.maxLeverage));
  }
  assert.deepEqual(ok(await alice.get(`/account/margin?${sub(alice)}&symbol=${ETH}`)).markets, [{ symbol: ETH, isolated: false, margin: '0.02', leverage: '50', maxLeverage: 50 }]);

  const update = await signedMarginUpdate(alice, { symbol: ETH, isolated: true, margin: '0.1' });
  const r = await alice.send('POST', '/account/margin', update);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.text, 'null');
  assert.deepEqual(ok(await alice.get(`/account/margin?${sub(alice)}&symbol=${ETH}`)).markets, [{ symbol: ETH, isolated: true, margin: '0.1', leverage: '10', maxLeverage: 50 }]);
  assertError(await alice.send('POST', '/account/margin', update), 409, 'Nonce already used');

  // a trade delegate may change it, with its own signature
  const byCarol = await signedMarginUpdate(carol, { account: alice.address, symbol: ETH, isolated: false, margin: '0.25' });
  const rc = await carol.send('POST', '/account/margin', byCarol);
  assert.equal(rc.status, 200, rc.text);
  assert.equal(ok(await alice.get(`/account/margin?${sub(alice)}&symbol=${ETH}`)).markets[0].margin, '0.25');

  const unauthorized = `Unauthorized to change margin for account ${alice.address}`;
  assertError(await dave.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: ETH, isolated: false, margin: '0.5' })), 403, unauthorized);
  assertError(await dave.send('POST', '/account/margin', await signedMarginUpdate(dave, { account: alice.address, symbol: ETH, isolated: false, margin: '0.5' })), 403, unauthorized);
  assertError(await erin.send('POST', '/account/margin', await signedMarginUpdate(erin, { account: alice.address, symbol: ETH, isolated: false, margin: '0.5' })), 403, unauthorized);
  // Alice's session, Erin's (read-only) signature
  assertError(await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: ETH, isolated: false, margin: '0.5' }, erin.wallet)), 403, unauthorized);

  const tampered = await signedMarginUpdate(alice, { symbol: ETH, isolated: false, margin: '0.5' });
  assertError(await alice.send('POST', '/account/margin', { ...tampered, margin: '0.4' }), 400, 'Invalid signature');
  assertError(await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: ETH, isolated: false, margin: '0.5', subaccountIndex: 6 })), 404, 'Account not found');
  assertError(await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: 'NOPE-USD-PERP', isolated: false, margin: '0.5' })), 404, 'Symbol not found');
  assertError(await alice.send('POST', '/account/margin', await signedMarginUpdate(alice, { symbol: ETH, isolated: false, margin: '1.5' })), 400, 'margin must be a fraction greater than 0 and at most 1 with at most 8 decimals, such as "0.33"');
  assertError(await ex.request('POST', '/account/margin', tampered), 401, 'Please add the JWT token to the header');
  assertError(await alice.get(`/account/margin?${sub(alice, 5)}`), 404, 'Account not found');
  assertError(await dave.get(`/account/margin?${sub(alice)}`), 403, 'Not delegated for account and subaccount');
});

test('POST /account/transfer with a signed Transfer: null body, balances move, and the spec refusals', async () => {
  const before = ok(await bob.get(`/account/balance?${sub(bob)}`)).collateral;
  const r = await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount: '100.5' }));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.text, 'null');
  assert.equal(ok(await bob.get(`/account/balance?${sub(bob)}`)).collateral, (Number(before) + 100.5).toString());

  // between her own subaccounts: the receiver is created on first credit
  const own = await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: alice.address, subaccountIndexTo: 2, amount: '1' }));
  assert.equal(own.status, 200, own.text);
  assert.equal(ok(await alice.get(`/account/balance?${sub(alice, 2)}`)).collateral, '1');

  const free = ok(await alice.get(`/account/balance?${sub(alice)}`)).freeCollateral;
  assertError(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount: (Number(free) + 1).toString() })), 400, 'Transfer amount exceeds available balance');
  assertError(await ex.request('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount: '1' })), 401, 'Please add the JWT token to the header');
  // delegates are forbidden: Carol's session relaying Alice's signature, or Carol's signature
  assertError(await carol.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount: '1' })), 403, 'Delegation not allowed for request');
  assertError(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount: '1' }, carol.wallet)), 403, 'Delegation not allowed for request');
  assertError(await carol.send('POST', '/account/transfer', await signedTransfer(carol, { accountFrom: alice.address, target: carol.address, accountTo: carol.address, amount: '1' })), 403, 'Delegation not allowed for request');
  // a stranger's signature
  assertError(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount: '1' }, dave.wallet)), 400, 'Invalid signature');
  assertError(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: alice.address, amount: '1' })), 400, 'Cannot transfer to the same subaccount');
  const amountText = 'amount must be a positive decimal string of USD with at most 6 decimals, such as "100.5"';
  for (const amount of ['0', '1.1234567', '-5']) assertError(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount })), 400, amountText);
  assertError(await dave.send('POST', '/account/transfer', await signedTransfer(dave, { accountTo: bob.address, amount: '1' })), 404, 'Account not found');
  const replayed = await signedTransfer(alice, { accountTo: bob.address, amount: '1.5' });
  assert.equal((await alice.send('POST', '/account/transfer', replayed)).status, 200);
  assertError(await alice.send('POST', '/account/transfer', replayed), 409, 'Nonce already used');
  assertError(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: bob.address, amount: '1', expiresAt: ex.now() - 1000 })), 400, 'Request expired');
});

test('GET /account/transfer/history: in and out, newest first, direction, from, to, limit', async () => {
  const { transfers } = ok(await alice.get(`/account/transfer/history?${sub(alice)}`));
  assert.deepEqual(transfers.map((t: any) => [t.direction, t.accountTo, t.subaccountIndexTo, t.amount]), [
    ['out', bob.address, 0, '1.5'],
    ['out', alice.address, 2, '1'],
    ['out', bob.address, 0, '100.5'],
  ]);
  for (const t of transfers) {
    assert.deepEqual(Object.keys(t).sort(), ['accountFrom', 'accountTo', 'amount', 'direction', 'id', 'subaccountIndexFrom', 'subaccountIndexTo', 'time']);
    assert.ok(isInteger(t.id));
    assertMillisNow(t.time, 'transfer.time');
    assert.match(t.accountFrom, ADDRESS);
    assert.equal(t.accountFrom, alice.address);
    assert.equal(t.subaccountIndexFrom, 0);
    assertDecimal(t.amount, 'transfer.amount', UNSIGNED_DECIMAL);
  }
  assert.ok(transfers[0].id > transfers[1].id && transfers[1].id > transfers[2].id);
  const bobs = ok(await bob.get(`/account/transfer/history?${sub(bob)}&direction=in`)).transfers;
  assert.deepEqual(bobs.map((t: any) => [t.direction, t.amount]), [['in', '1.5'], ['in', '100.5']]);
  assert.deepEqual(ok(await bob.get(`/account/transfer/history?${sub(bob)}&direction=out`)).transfers, []);
  assert.deepEqual(ok(await alice.get(`/account/transfer/history?${sub(alice, 2)}`)).transfers.map((t: any) => [t.direction, t.amount]), [['in', '1']]);
  assert.equal(ok(await alice.get(`/account/transfer/history?${sub(alice)}&limit=1`)).transfers[0].amount, '1.5');
  assert.deepEqual(ok(await alice.get(`/account/transfer/history?${sub(alice)}&to=${transfers[2].time}`)).transfers, []);
  assert.equal(ok(await alice.get(`/account/transfer/history?${sub(alice)}&from=${transfers[2].time}`)).transfers.length, 3);
  assertError(await alice.get(`/account/transfer/history?${sub(alice)}&direction=sideways`), 400, 'direction must be in or out, got sideways');
  assertError(await alice.get(`/account/transfer/history?${sub(alice)}&limit=0`), 400, 'Limit must be between 1 and 5000, got 0');
  assertError(await dave.get(`/account/transfer/history?${sub(alice)}`), 403, 'Not delegated for account and subaccount');
  assert.equal(ok(await erin.get(`/account/transfer/history?${sub(alice)}`)).transfers.length, 3);
});

test('GET/POST /account/delegates and GET /account/signers', async () => {
  const listed = ok(await alice.get(`/account/delegates?${sub(alice)}`));
  assert.equal(listed.account, alice.address);
  assert.equal(listed.subaccountIndex, 0);
  assert.deepEqual(
    listed.delegates,
    [
      { subaccountIndex: 0, delegate: carol.address, scopes: ['trade', 'read'] },
      { subaccountIndex: 0, delegate: erin.address, scopes: ['read'] },
    ].sort((a, b) => (a.delegate < b.delegate ? -1 : 1)),
  );
  assert.deepEqual(ok(await alice.get(`/account/signers?${sub(alice)}`)), { account: alice.address, subaccountIndex: 0, signers: [alice.address, carol.address] });
  assert.deepEqual(ok(await erin.get(`/account/signers?${sub(alice)}`)).signers, [alice.address, carol.address], 'a read delegate may read the signers');
  assert.deepEqual(ok(await alice.get(`/account/delegates?${sub(alice, 1)}`)).delegates, []);

  // a delegate cannot change the delegates, by session or by signature
  assertError(await carol.send('POST', '/account/delegates', await signedDelegation(alice, dave.address, 'read', 'add', 0, carol.wallet)), 403, 'Delegation not allowed for request');
  assertError(await alice.send('POST', '/account/delegates', await signedDelegation(alice, dave.address, 'read', 'add', 0, carol.wallet)), 403, 'Delegation not allowed for request');
  assertError(await alice.send('POST', '/account/delegates', await signedDelegation(alice, dave.address, 'admin')), 400, 'Invalid delegation scopes: use trade, read or trade,read');
  assertError(await alice.send('POST', '/account/delegates', await signedDelegation(alice, alice.address, 'read')), 400, 'An account cannot delegate to itself');
  // Nobody holds the zero address's key: a grant to it is a client's mistake (an unset variable), never a signer.
  assertError(await alice.send('POST', '/account/delegates', await signedDelegation(alice, '0x0000000000000000000000000000000000000000', 'trade')), 400, 'Cannot delegate to the zero address: nobody holds its key');
  assert.deepEqual(ok(await alice.get(`/account/signers?${sub(alice)}`)).signers, [alice.address, carol.address]);
  assertError(await alice.send('POST', '/account/delegates', await signedDelegation(alice, dave.address, '', 'remove')), 404, 'Delegate not found');
  assertError(await dave.get(`/account/delegates?${sub(alice)}`), 403, 'Not delegated for account and subaccount');
  assertError(await dave.get(`/account/signers?${sub(alice)}`), 403, 'Not delegated for account and subaccount');

  // a grant on another subaccount, then its removal
  const added = await alice.send('POST', '/account/delegates', await signedDelegation(alice, dave.address, 'trade', 'add', 1));
  assert.equal(added.status, 200, added.text);
  assert.equal(added.text, 'null');
  assert.deepEqual(ok(await alice.get(`/account/signers?${sub(alice, 1)}`)).signers, [alice.address, dave.address]);
  assert.equal((await alice.send('POST', '/account/delegates', await signedDelegation(alice, dave.address, '', 'remove', 1))).status, 200);
  assert.deepEqual(ok(await alice.get(`/account/signers?${sub(alice, 1)}`)).signers, [alice.address]);
});

test('GET /account/nonce: the next nonce per signer window, 0 when none', async () => {
  const body = await alice.signedOrder({ price: '80000', quantity: '0.01' });
  ok(await alice.send('POST', '/account/order', body));
  const next = ok(await alice.get(`/account/nonce?${sub(alice)}`));
  assert.deepEqual(next, { account: alice.address, subaccountIndex: 0, signer: alice.address, nonce: (body.nonce as number) + 1 });
  const update = await signedMarginUpdate(carol, { account: alice.address, symbol: BTC, isolated: false, margin: '0.05' });
  assert.equal((await carol.send('POST', '/account/margin', update)).status, 200);
  assert.equal(ok(await carol.get(`/account/nonce?${sub(alice)}&signer=${carol.address}`)).nonce, (update.nonce as number) + 1);
  assert.deepEqual(ok(await alice.get(`/account/nonce?${sub(alice, 3)}`)), { account: alice.address, subaccountIndex: 3, signer: alice.address, nonce: 0 });
  assertError(await alice.get(`/account/nonce?${sub(alice)}&signer=carol`), 400, 'signer must be a 0x-prefixed 20-byte hex address');
  assertError(await dave.get(`/account/nonce?${sub(alice)}`), 403, 'Not delegated for account and subaccount');
  ok(await alice.send('DELETE', `/account/orders?${sub(alice)}`));
});

test('a closed position leaves /account/positions; the closing fill carries its realized PnL; holds limit what may be transferred', async () => {
  const [kay, lou] = await Promise.all([login(), login()]);
  await kay.fund('100000');
  await lou.fund('100000');
  const SOL = 'SOL-USD-PERP';
  ok(await lou.place({ symbol: SOL, price: '200', quantity: '-10' }));
  ok(await kay.place({ symbol: SOL, price: '200', quantity: '10' }));
  ok(await lou.place({ symbol: SOL, price: '210', quantity: '10' }));
  const [close] = ok(await kay.place({ symbol: SOL, price: '210', quantity: '-10' }));
  assert.equal(close.status, 'filled');
  assert.deepEqual(ok(await kay.get(`/account/positions?${sub(kay)}`)).positions, []);
  const [closing, opening] = ok(await kay.get(`/account/fills?${sub(kay)}`));
  assert.deepEqual([closing.orderId, closing.price, closing.quantity, closing.realizedPnl], [close.orderId, '210', '-10', '100']);
  assert.deepEqual([opening.price, opening.quantity, opening.realizedPnl], ['200', '10', '0']);

  // margin 0.33 (about 3x): leverage is 1 / margin; below 1 / maxLeverage is refused
  assert.equal((await kay.send('POST', '/account/margin', await signedMarginUpdate(kay, { symbol: SOL, isolated: false, margin: '0.33' }))).status, 200);
  assert.deepEqual(ok(await kay.get(`/account/margin?${sub(kay)}&symbol=${SOL}`)).markets, [{ symbol: SOL, isolated: false, margin: '0.33', leverage: '3.03030303', maxLeverage: 20 }]);
  assertError(await kay.send('POST', '/account/margin', await signedMarginUpdate(kay, { symbol: SOL, isolated: false, margin: '0.04' })), 400, 'Margin must be between 1/maxLeverage and 1');

  // an open order holds margin: the transferable amount is freeCollateral, exactly
  ok(await kay.place({ symbol: SOL, price: '100', quantity: '100' }));
  const balance = ok(await kay.get(`/account/balance?${sub(kay)}`));
  assert.notEqual(balance.orderHolds, '0');
  assert.equal(balance.freeCollateral, (Number(balance.collateral) - Number(balance.orderHolds)).toFixed(6).replace(/\.?0+$/, ''));
  const exact = await kay.send('POST', '/account/transfer', await signedTransfer(kay, { accountTo: lou.address, amount: balance.freeCollateral }));
  assert.equal(exact.status, 200, exact.text);
  assert.equal(ok(await kay.get(`/account/balance?${sub(kay)}`)).freeCollateral, '0');
  assertError(await kay.send('POST', '/account/transfer', await signedTransfer(kay, { accountTo: lou.address, amount: '1' })), 400, 'Transfer amount exceeds available balance');
  assertError(await kay.send('POST', '/account/transfer', await signedTransfer(kay, { accountTo: lou.address, amount: '1', feedId: 'btc' })), 400, 'feedId must be a 0x-prefixed hex string of at most 32 bytes');
});
