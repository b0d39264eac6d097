/** POST /account/margin over HTTP: a signed `MarginUpdate` by the account or a trade delegate; texts of the spec. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_VIEM as ALICE_WALLET, ALICE, BOB_VIEM as BOB_WALLET, BOB, CAROL_VIEM as CAROL_WALLET } from '../auth/fixtures.ts';
import type { MarginUpdateMessage } from '../../src/auth/typed-data.ts';
import { startAccountServer, sign, NOW, IN_ONE_HOUR, USD } from './account-server.ts';


const server = await startAccountServer();
server.ledger.deposit(ALICE, 0, 1000n * USD, NOW);
const aliceToken = await server.login(ALICE_WALLET);
const bobToken = await server.login(BOB_WALLET);
const carolToken = await server.login(CAROL_WALLET);

let nonce = 0;
function update(fields: Partial<MarginUpdateMessage> = {}): MarginUpdateMessage {
  return { account: ALICE, subaccountIndex: 0, symbol: 'BTC-USD-PERP', isolated: true, margin: '0.25', nonce: ++nonce, expiresAt: IN_ONE_HOUR, ...fields };
}
async function signed(message: MarginUpdateMessage, wallet = ALICE_WALLET) {
  return { ...message, signatures: [await sign(wallet, 'MarginUpdate', message)] };
}
const settings = async () => (await server.get(`/account/margin?account=${ALICE}&subaccountIndex=0&symbol=BTC-USD-PERP`, aliceToken)).json().markets[0];

test('Alice sets isolated 25 % in BTC: null body, the setting shows 4× leverage', async () => {
  const res = await server.post('/account/margin', await signed(update()), aliceToken);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, 'null');
  assert.deepEqual(await settings(), { symbol: 'BTC-USD-PERP', isolated: true, margin: '0.25', leverage: '4', maxLeverage: 50 });
  const write = server.writes.at(-1)!;
  assert.equal(write.kind, 'setMargin');
  assert.equal((write.write as { margin: bigint }).margin, 25_000_000n);
});

test('a trade delegate may sign and submit it', async () => {
  server.delegate(ALICE, 0, BOB, 'trade');
  try {
    const res = await server.post('/account/margin', await signed(update({ isolated: false, margin: '0.1' }), BOB_WALLET), bobToken);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await settings(), { symbol: 'BTC-USD-PERP', isolated: false, margin: '0.1', leverage: '10', maxLeverage: 50 });
  } finally {
    server.revoke(ALICE, 0, BOB);
  }
});

test('a read-only delegate, or a stranger, is 403 Unauthorized to change margin for account <account>', async () => {
  server.delegate(ALICE, 0, BOB, 'read');
  try {
    const token = await server.post('/account/margin', await signed(update(), BOB_WALLET), bobToken);
    assert.equal(token.status, 403);
    assert.equal(token.text, `Unauthorized to change margin for account ${ALICE}`);
    const signer = await server.post('/account/margin', await signed(update(), BOB_WALLET), aliceToken);
    assert.equal(signer.status, 403);
    assert.equal(signer.text, `Unauthorized to change margin for account ${ALICE}`);
  } finally {
    server.revoke(ALICE, 0, BOB);
  }
  const stranger = await server.post('/account/margin', await signed(update(), CAROL_WALLET), carolToken);
  assert.equal(stranger.status, 403);
  assert.equal(stranger.text, `Unauthorized to change margin for account ${ALICE}`);
  const strangerSignature = await server.post('/account/margin', await signed(update(), CAROL_WALLET), aliceToken);
  assert.equal(strangerSignature.status, 400);
  assert.equal(strangerSignature.text, 'Invalid signature');
});

test('an unknown subaccount is 404 Account not found; an unknown symbol 404 Symbol not found', async () => {
  const missing = await server.post('/account/margin', await signed(update({ subaccountIndex: 5 })), aliceToken);
  assert.equal(missing.status, 404);
  assert.equal(missing.text, 'Account not found');
  const symbol = await server.post('/account/margin', await signed(update({ symbol: 'DOGE-USD-PERP' })), aliceToken);
  assert.equal(symbol.status, 404);
  assert.equal(symbol.text, 'Symbol not found');
});

test('margin outside (0, 1], finer than 8 decimals, or above max leverage is refused', async () => {
  for (const margin of ['0', '1.5', '0.123456789', '-0.1', 'abc']) {
    const res = await server.post('/account/margin', await signed(update({ margin })), aliceToken);
    assert.equal(res.status, 400, margin);
    assert.equal(res.text, 'margin must be a fraction greater than 0 and at most 1 with at most 8 decimals, such as "0.33"', margin);
  }
  const tooLeveraged = await server.post('/account/margin', await signed(update({ margin: '0.01' })), aliceToken);
  assert.equal(tooLeveraged.status, 400);
  assert.equal(tooLeveraged.text, 'Margin must be between 1/maxLeverage and 1');
});

test('replay is 409 Nonce already used; no token is 401', async () => {
  const body = await signed(update({ margin: '0.5' }));
  assert.equal((await server.post('/account/margin', body, aliceToken)).status, 200);
  const replay = await server.post('/account/margin', body, aliceToken);
  assert.equal(replay.status, 409);
  assert.equal(replay.text, 'Nonce already used');
  const anonymous = await server.post('/account/margin', body);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.text, 'Please add the JWT token to the header');
});
