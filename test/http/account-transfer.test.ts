/**
 * POST /account/transfer and GET /account/transfer/history over HTTP: EIP-712 `Transfer`
 * signed with viem from the published typed data; only accountFrom itself moves its money.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_VIEM as ALICE_WALLET, ALICE, BOB_VIEM as BOB_WALLET, BOB } from '../auth/fixtures.ts';
import { publishedTypedData, type TransferMessage } from '../../src/auth/typed-data.ts';
import { startAccountServer, sign, NOW, IN_ONE_HOUR, USD, PROFILE } from './account-server.ts';
import type { Address } from '../../src/auth/address.ts';


const server = await startAccountServer();
server.ledger.deposit(ALICE, 0, 1000n * USD, NOW);
const aliceToken = await server.login(ALICE_WALLET);
const bobToken = await server.login(BOB_WALLET);

let nonce = 0;
function transfer(fields: Partial<TransferMessage> = {}): TransferMessage {
  return { accountFrom: ALICE, accountTo: BOB, subaccountIndexFrom: 0, subaccountIndexTo: 0, amount: '100', feedId: '0x01', nonce: ++nonce, expiresAt: IN_ONE_HOUR, target: ALICE, ...fields };
}
async function signed(message: TransferMessage, wallet = ALICE_WALLET) {
  return { ...message, signatures: [await sign(wallet, 'Transfer', message)] };
}
const balance = async (account: Address, sub: number, token: string) => (await server.get(`/account/balance?account=${account}&subaccountIndex=${sub}`, token)).json();

test('the published typed data is what the client signs with', () => {
  const published = publishedTypedData(PROFILE);
  assert.equal(published.primaryTypes.transfer, 'Transfer');
  assert.deepEqual(published.types.Transfer.map((f) => f.name), ['accountFrom', 'accountTo', 'subaccountIndexFrom', 'subaccountIndexTo', 'amount', 'feedId', 'nonce', 'expiresAt', 'target']);
});

test('Alice moves 100.5 USD to Bob: null body, balances move, the write carries base units and the signer', async () => {
  const res = await server.post('/account/transfer', await signed(transfer({ amount: '100.5' })), aliceToken);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, 'null');
  assert.equal((await balance(ALICE, 0, aliceToken)).collateral, '899.5');
  assert.equal((await balance(BOB, 0, bobToken)).collateral, '100.5');
  const write = server.writes.at(-1)!;
  assert.equal(write.kind, 'transfer');
  assert.equal((write.write as { amount: bigint }).amount, 100_500_000n);
  assert.equal(write.write.signer, ALICE);
});

test('and between her own subaccounts', async () => {
  const res = await server.post('/account/transfer', await signed(transfer({ accountTo: ALICE, subaccountIndexTo: 2, amount: '1' })), aliceToken);
  assert.equal(res.status, 200, res.text);
  assert.equal((await balance(ALICE, 2, aliceToken)).collateral, '1');
});

test('transfer history lists in and out, newest first, with direction, from/to and limit', async () => {
  const res = await server.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0`, aliceToken);
  assert.equal(res.status, 200, res.text);
  const { transfers } = res.json();
  assert.equal(transfers.length, 2);
  assert.deepEqual(transfers[1], { id: 1, time: NOW, direction: 'out', accountFrom: ALICE, subaccountIndexFrom: 0, accountTo: BOB, subaccountIndexTo: 0, amount: '100.5' });
  assert.equal(transfers[0].amount, '1');
  const bobs = (await server.get(`/account/transfer/history?account=${BOB}&subaccountIndex=0&direction=in`, bobToken)).json().transfers;
  assert.deepEqual(bobs.map((t: { direction: string; amount: string }) => [t.direction, t.amount]), [['in', '100.5']]);
  assert.deepEqual((await server.get(`/account/transfer/history?account=${BOB}&subaccountIndex=0&direction=out`, bobToken)).json(), { transfers: [] });
  assert.equal((await server.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0&limit=1`, aliceToken)).json().transfers.length, 1);
  assert.equal((await server.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0&to=${NOW}`, aliceToken)).json().transfers.length, 0);
  const bad = await server.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0&direction=sideways`, aliceToken);
  assert.equal(bad.status, 400);
  assert.equal(bad.text, 'direction must be in or out, got sideways');
  const denied = await server.get(`/account/transfer/history?account=${ALICE}&subaccountIndex=0`, bobToken);
  assert.equal(denied.status, 403);
});

test('more than the free collateral is 400 Transfer amount exceeds available balance', async () => {
  const res = await server.post('/account/transfer', await signed(transfer({ amount: '5000' })), aliceToken);
  assert.equal(res.status, 400);
  assert.equal(res.text, 'Transfer amount exceeds available balance');
});

test('no token is 401 Please add the JWT token to the header', async () => {
  const res = await server.post('/account/transfer', await signed(transfer()));
  assert.equal(res.status, 401);
  assert.equal(res.text, 'Please add the JWT token to the header');
});

test('delegates are forbidden: a trade delegate token, a delegate signature, or target ≠ accountFrom → 403 Delegation not allowed for request', async () => {
  server.delegate(ALICE, 0, BOB, 'trade,read');
  try {
    const withBobsToken = await server.post('/account/transfer', await signed(transfer()), bobToken);
    assert.equal(withBobsToken.status, 403);
    assert.equal(withBobsToken.text, 'Delegation not allowed for request');
    const bobTarget = await server.post('/account/transfer', await signed(transfer({ target: BOB }), BOB_WALLET), aliceToken);
    assert.equal(bobTarget.status, 403);
    assert.equal(bobTarget.text, 'Delegation not allowed for request');
    const bobSigned = await server.post('/account/transfer', await signed(transfer(), BOB_WALLET), aliceToken);
    assert.equal(bobSigned.status, 403);
    assert.equal(bobSigned.text, 'Delegation not allowed for request');
  } finally {
    server.revoke(ALICE, 0, BOB);
  }
});

test('a stranger’s or a tampered signature is 400 Invalid signature; a replay is 409', async () => {
  const stranger = await server.post('/account/transfer', await signed(transfer(), BOB_WALLET), aliceToken);
  assert.equal(stranger.status, 400);
  assert.equal(stranger.text, 'Invalid signature');
  const body = await signed(transfer({ amount: '1' }));
  const tampered = await server.post('/account/transfer', { ...body, amount: '2' }, aliceToken);
  assert.equal(tampered.status, 400);
  assert.equal(tampered.text, 'Invalid signature');
  assert.equal((await server.post('/account/transfer', body, aliceToken)).status, 200);
  const replay = await server.post('/account/transfer', body, aliceToken);
  assert.equal(replay.status, 409);
  assert.equal(replay.text, 'Nonce already used');
  const expired = await server.post('/account/transfer', await signed(transfer({ expiresAt: NOW - 1 })), aliceToken);
  assert.equal(expired.status, 400);
  assert.equal(expired.text, 'Request expired');
});

test('amounts are positive decimals with at most 6 decimals; bodies are strict', async () => {
  for (const amount of ['0', '0.0000001', '-1', '1e3', '', ' 1', '1.']) {
    const res = await server.post('/account/transfer', await signed(transfer({ amount })), aliceToken);
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
    const res = await server.post('/account/transfer', body, aliceToken);
    assert.equal(res.status, 400, text);
    assert.equal(res.text, text);
  }
  const unknownSender = await server.post('/account/transfer', await signed(transfer({ subaccountIndexFrom: 9 })), aliceToken);
  assert.equal(unknownSender.status, 404);
  assert.equal(unknownSender.text, 'Account not found');
});
