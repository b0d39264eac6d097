/**
 * POST /account/transfer and GET /account/transfer/history on the in-process exchange
 * (test/harness/in-process-exchange): EIP-712 `Transfer` signed with viem from the published
 * typed data; only accountFrom itself moves its money.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_KEY, ALICE, BOB_KEY, BOB, TESTNET } from '../auth/fixtures.ts';
import { publishedTypedData, type TransferMessage } from '../../src/auth/typed-data.ts';
import type { Address } from '../../src/auth/address.ts';
import { CommandKind, type Transfer } from '../../src/app/commands.ts';
import { startInProcessExchange, submittedCommands } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { delegate, revoke, signTyped } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const NOW = ex.now();
const IN_ONE_HOUR = NOW + 3_600_000;
const [alice, bob] = [new Trader(ex, ALICE_KEY), new Trader(ex, BOB_KEY)];
for (const trader of [alice, bob]) await trader.login();
await alice.fund('1000');
const commands = submittedCommands(ex);

let nonce = 0;
function transfer(fields: Partial<TransferMessage> = {}): TransferMessage {
  return { accountFrom: ALICE, accountTo: BOB, subaccountIndexFrom: 0, subaccountIndexTo: 0, amount: '100', feedId: '0x01', nonce: ++nonce, expiresAt: IN_ONE_HOUR, target: ALICE, ...fields };
}
async function signed(message: TransferMessage, wallet = alice.wallet) {
  return { ...message, signatures: [await signTyped(ex, wallet, 'Transfer', { ...message })] };
}
const balance = async (account: Address, sub: number, reader: Trader) => (await reader.get(`/account/balance?account=${account}&subaccountIndex=${sub}`)).json();

test('the published typed data is what the client signs with', () => {
  const published = publishedTypedData(TESTNET);
  assert.equal(published.primaryTypes.transfer, 'Transfer');
  assert.deepEqual(published.types.Transfer.map((f) => f.name), ['accountFrom', 'accountTo', 'subaccountIndexFrom', 'subaccountIndexTo', 'amount', 'feedId', 'nonce', 'expiresAt', 'target']);
});

test('Alice moves 100.5 USD to Bob: null body, balances move, the write carries base units and the signer', async () => {
  const res = await alice.send('POST', '/account/transfer', await signed(transfer({ amount: '100.5' })));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, 'null');
  assert.equal((await balance(ALICE, 0, alice)).collateral, '899.5');
  assert.equal((await balance(BOB, 0, bob)).collateral, '100.5');
  const write = commands.at(-1)!;
  assert.equal(write.kind, CommandKind.Transfer);
  assert.equal((write as Transfer).amount, 100_500_000n);
  assert.equal((write as Transfer).signer, ALICE);
});

test('and between her own subaccounts', async () => {
  const res = await alice.send('POST', '/account/transfer', await signed(transfer({ accountTo: ALICE, subaccountIndexTo: 2, amount: '1' })));
  assert.equal(res.status, 200, res.text);
  assert.equal((await balance(ALICE, 2, alice)).collateral, '1');
});

test('transfer history lists in and out, newest first, with direction, from/to and limit', async () => {
  const res = await alice.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0`);
  assert.equal(res.status, 200, res.text);
  const { transfers } = res.json();
  assert.equal(transfers.length, 2);
  assert.deepEqual(transfers[1], { id: 1, time: NOW, direction: 'out', accountFrom: ALICE, subaccountIndexFrom: 0, accountTo: BOB, subaccountIndexTo: 0, amount: '100.5' });
  assert.equal(transfers[0].amount, '1');
  const bobs = (await bob.get(`/account/transfer/history?account=${BOB}&subaccountIndex=0&direction=in`)).json().transfers;
  assert.deepEqual(bobs.map((t: { direction: string; amount: string }) => [t.direction, t.amount]), [['in', '100.5']]);
  assert.deepEqual((await bob.get(`/account/transfer/history?account=${BOB}&subaccountIndex=0&direction=out`)).json(), { transfers: [] });
  assert.equal((await alice.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0&limit=1`)).json().transfers.length, 1);
  assert.equal((await alice.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0&to=${NOW}`)).json().transfers.length, 0);
  const bad = await alice.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0&direction=sideways`);
  assert.equal(bad.status, 400);
  assert.equal(bad.text, 'direction must be in or out, got sideways');
  const denied = await bob.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0`);
  assert.equal(denied.status, 403);
});

test('more than the free collateral is 400 Transfer amount exceeds available balance', async () => {
  const res = await alice.send('POST', '/account/transfer', await signed(transfer({ amount: '5000' })));
  assert.equal(res.status, 400);
  assert.equal(res.text, 'Transfer amount exceeds available balance');
});

test('to the zero address is 400: nobody holds its key, so the money could never move again; nothing moves, no command is submitted', async () => {
  const before = await balance(ALICE, 0, alice);
  const submitted = commands.length;
  const res = await alice.send('POST', '/account/transfer', await signed(transfer({ accountTo: '0x0000000000000000000000000000000000000000' })));
  assert.equal(res.status, 400);
  assert.equal(res.text, 'Cannot transfer to the zero address: nobody holds its key');
  assert.deepEqual(await balance(ALICE, 0, alice), before);
  assert.equal(commands.length, submitted);
});

test('an amount larger than any balance (10 billion USD and up, past the ledger\'s range) is 400 Transfer amount exceeds available balance too, not a format error', async () => {
  for (const amount of ['10000000000', '99999999999999999999']) {
    const res = await alice.send('POST', '/account/transfer', await signed(transfer({ amount })));
    assert.equal(res.status, 400);
    assert.equal(res.text, 'Transfer amount exceeds available balance', amount);
  }
  // Still a signed write: another key's signature is refused as before.
  const forged = await alice.send('POST', '/account/transfer', await signed(transfer({ amount: '10000000000' }), bob.wallet));
  assert.equal(forged.status, 400);
  assert.equal(forged.text, 'Invalid signature');
  // A malformed amount keeps its own text.
  const malformed = await alice.send('POST', '/account/transfer', await signed(transfer({ amount: '1.0000001' })));
  assert.equal(malformed.text, 'amount must be a positive decimal string of USD with at most 6 decimals, such as "100.5"');
});

test('no token is 401 Please add the JWT token to the header', async () => {
  const res = await ex.request('POST', '/account/transfer', await signed(transfer()));
  assert.equal(res.status, 401);
  assert.equal(res.text, 'Please add the JWT token to the header');
});

test('delegates are forbidden: a trade delegate token, a delegate signature, or target ≠ accountFrom → 403 Delegation not allowed for request', async () => {
  await delegate(alice, bob, 'trade,read');
  try {
    const withBobsToken = await bob.send('POST', '/account/transfer', await signed(transfer()));
    assert.equal(withBobsToken.status, 403);
    assert.equal(withBobsToken.text, 'Delegation not allowed for request');
    const bobTarget = await alice.send('POST', '/account/transfer', await signed(transfer({ target: BOB }), bob.wallet));
    assert.equal(bobTarget.status, 403);
    assert.equal(bobTarget.text, 'Delegation not allowed for request');
    const bobSigned = await alice.send('POST', '/account/transfer', await signed(transfer(), bob.wallet));
    assert.equal(bobSigned.status, 403);
    assert.equal(bobSigned.text, 'Delegation not allowed for request');
  } finally {
    await revoke(alice, bob);
  }
});

test('a stranger’s or a tampered signature is 400 Invalid signature; a replay is 409', async () => {
  const stranger = await alice.send('POST', '/account/transfer', await signed(transfer(), bob.wallet));
  assert.equal(stranger.status, 400);
  assert.equal(stranger.text, 'Invalid signature');
  const body = await signed(transfer({ amount: '1' }));
  const tampered = await alice.send('POST', '/account/transfer', { ...body, amount: '2' });
  assert.equal(tampered.status, 400);
  assert.equal(tampered.text, 'Invalid signature');
  assert.equal((await alice.send('POST', '/account/transfer', body)).status, 200);
  const replay = await alice.send('POST', '/account/transfer', body);
  assert.equal(replay.status, 409);
  assert.equal(replay.text, 'Nonce already used');
  const expired = await alice.send('POST', '/account/transfer', await signed(transfer({ expiresAt: NOW - 1 })));
  assert.equal(expired.status, 400);
  assert.equal(expired.text, 'Request expired');
});

test('amounts are positive decimals with at most 6 decimals; bodies are strict', async () => {
  for (const amount of ['0', '0.0000001', '-1', '1e3', '', ' 1', '1.']) {
    const res = await alice.send('POST', '/account/transfer', await signed(transfer({ amount })));
    assert.equal(res.status, 400, amount);
    assert.equal(res.text, 'amount must be a positive decimal string of USD with at most 6 decimals, such as "100.5"', amount);
  }
  const message = transfer();
  const cases: Array<[unknown, string]> = [
    [{ ...message, subaccountIndexFrom: -1, signatures: ['0x'] }, 'Invalid subaccount index'],
    [{ ...message, signatures: ['0x'], extra: true }, 'Unknown field extra'],
    [{ ...message }, 'Missing field signatures'],
    [{ ...message, signatures: ['0x'], nonce: 2 ** 53 }, 'nonce must be an integer from 0 to 9007199254740991'],
    [{ ...message, signatures: ['0x'], feedId: 'abc' }, 'feedId must be a 0x-prefixed hex string of at most 32 bytes'],
  ];
  for (const [body, text] of cases) {
    const res = await alice.send('POST', '/account/transfer', body);
    assert.equal(res.status, 400, text);
    assert.equal(res.text, text);
  }
  const unknownSender = await alice.send('POST', '/account/transfer', await signed(transfer({ subaccountIndexFrom: 9 })));
  assert.equal(unknownSender.status, 404);
  assert.equal(unknownSender.text, 'Account not found');
});
