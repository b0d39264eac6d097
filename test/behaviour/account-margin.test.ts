/**
 * POST /account/margin on the in-process exchange (test/harness/in-process-exchange): a signed
 * `MarginUpdate` by the account or a trade delegate; texts of the spec.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_KEY, ALICE, ALICE_VIEM, BOB_KEY, CAROL_KEY } from '../auth/fixtures.ts';
import type { MarginUpdateMessage } from '../../src/auth/typed-data.ts';
import { CommandKind, type SetMargin } from '../../src/app/commands.ts';
import { startInProcessExchange, submittedCommands } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { delegate, revoke, signTyped } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const IN_ONE_HOUR = ex.now() + 3_600_000;
const [alice, bob, carol] = [new Trader(ex, ALICE_KEY), new Trader(ex, BOB_KEY), new Trader(ex, CAROL_KEY)];
for (const trader of [alice, bob, carol]) await trader.login();
await alice.fund('1000');
const commands = submittedCommands(ex);

let nonce = 0;
function update(fields: Partial<MarginUpdateMessage> = {}): MarginUpdateMessage {
  return { account: ALICE, subaccountIndex: 0, symbol: 'BTC-USD-PERP', isolated: true, margin: '0.25', nonce: ++nonce, expiresAt: IN_ONE_HOUR, ...fields };
}
async function signed(message: MarginUpdateMessage, wallet = alice.wallet) {
  return { ...message, signatures: [await signTyped(ex, wallet, 'MarginUpdate', { ...message })] };
}
const settings = async () => (await alice.get(`/account/margin?account=${ALICE}&subaccountIndex=0&symbol=BTC-USD-PERP`)).json().markets[0];

test('Alice sets isolated 25 % in BTC: null body, the setting shows 4× leverage', async () => {
  const res = await alice.send('POST', '/account/margin', await signed(update()));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, 'null');
  assert.deepEqual(await settings(), { symbol: 'BTC-USD-PERP', isolated: true, margin: '0.25', leverage: '4', maxLeverage: 50 });
  const write = commands.at(-1)!;
  assert.equal(write.kind, CommandKind.SetMargin);
  assert.equal((write as SetMargin).margin, 25_000_000n);
});

test('a trade delegate may sign and submit it', async () => {
  await delegate(alice, bob, 'trade');
  try {
    const res = await bob.send('POST', '/account/margin', await signed(update({ isolated: false, margin: '0.1' }), bob.wallet));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await settings(), { symbol: 'BTC-USD-PERP', isolated: false, margin: '0.1', leverage: '10', maxLeverage: 50 });
  } finally {
    await revoke(alice, bob);
  }
});

test('a read-only delegate, or a stranger, is 403 Unauthorized to change margin for account <account>', async () => {
  await delegate(alice, bob, 'read');
  try {
    const token = await bob.send('POST', '/account/margin', await signed(update(), bob.wallet));
    assert.equal(token.status, 403);
    assert.equal(token.text, `Unauthorized to change margin for account ${ALICE}`);
    const signer = await alice.send('POST', '/account/margin', await signed(update(), bob.wallet));
    assert.equal(signer.status, 403);
    assert.equal(signer.text, `Unauthorized to change margin for account ${ALICE}`);
  } finally {
    await revoke(alice, bob);
  }
  const stranger = await carol.send('POST', '/account/margin', await signed(update(), carol.wallet));
  assert.equal(stranger.status, 403);
  assert.equal(stranger.text, `Unauthorized to change margin for account ${ALICE}`);
  const strangerSignature = await alice.send('POST', '/account/margin', await signed(update(), carol.wallet));
  assert.equal(strangerSignature.status, 400);
  assert.equal(strangerSignature.text, 'Invalid signature');
});

test('Unauthorized to change margin for account <account> names the account as the request wrote it (a viem address is checksummed)', async () => {
  const written = ALICE_VIEM.address; // 0x + mixed case, as viem gives it
  assert.notEqual(written, ALICE);
  await delegate(alice, bob, 'read');
  try {
    // refused at the token (a stranger's session) and at the signer (a read-only delegate's signature)
    const token = await carol.send('POST', '/account/margin', await signed(update({ account: written as never }), carol.wallet));
    assert.equal(token.status, 403);
    assert.equal(token.text, `Unauthorized to change margin for account ${written}`);
    const signer = await alice.send('POST', '/account/margin', await signed(update({ account: written as never }), bob.wallet));
    assert.equal(signer.status, 403);
    assert.equal(signer.text, `Unauthorized to change margin for account ${written}`);
  } finally {
    await revoke(alice, bob);
  }
});

test('an unknown subaccount is 404 Account not found; an unknown symbol 404 Symbol not found', async () => {
  const missing = await alice.send('POST', '/account/margin', await signed(update({ subaccountIndex: 5 })));
  assert.equal(missing.status, 404);
  assert.equal(missing.text, 'Account not found');
  const symbol = await alice.send('POST', '/account/margin', await signed(update({ symbol: 'DOGE-USD-PERP' })));
  assert.equal(symbol.status, 404);
  assert.equal(symbol.text, 'Symbol not found');
});

test('margin outside (0, 1], finer than 8 decimals, or above max leverage is refused', async () => {
  for (const margin of ['0', '1.5', '0.123456789', '-0.1', 'abc']) {
    const res = await alice.send('POST', '/account/margin', await signed(update({ margin })));
    assert.equal(res.status, 400, margin);
    assert.equal(res.text, 'margin must be a fraction greater than 0 and at most 1 with at most 8 decimals, such as "0.33"', margin);
  }
  const tooLeveraged = await alice.send('POST', '/account/margin', await signed(update({ margin: '0.01' })));
  assert.equal(tooLeveraged.status, 400);
  assert.equal(tooLeveraged.text, 'Margin must be between 1/maxLeverage and 1');
});

test('replay is 409 Nonce already used; no token is 401', async () => {
  const body = await signed(update({ margin: '0.5' }));
  assert.equal((await alice.send('POST', '/account/margin', body)).status, 200);
  const replay = await alice.send('POST', '/account/margin', body);
  assert.equal(replay.status, 409);
  assert.equal(replay.text, 'Nonce already used');
  const anonymous = await ex.request('POST', '/account/margin', body);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.text, 'Please add the JWT token to the header');
});

test('a field of the wrong type is refused with what the field must be, not with what it means', async () => {
  const refusal = async (field: string, value: unknown) => (await alice.send('POST', '/account/margin', { ...(await signed(update())), [field]: value })).text;
  // each was the field's description read as a rule: `isolated must be true reserves margin for this market; false means cross margin`
  assert.equal(await refusal('isolated', 'true'), 'isolated must be of type boolean');
  assert.equal(await refusal('symbol', 5), 'symbol must be of type string');
  assert.equal(await refusal('symbol', ''), 'symbol must have at least 1 character');
  assert.equal(await refusal('nonce', '7'), 'nonce must be of type integer');
  assert.equal(await refusal('expiresAt', 'soon'), 'expiresAt must be of type integer');
  assert.equal(await refusal('account', 5), 'account must be a 0x-prefixed 20-byte hex address');
  assert.equal(await refusal('account', 'alice'), 'account must be a 0x-prefixed 20-byte hex address');
});
