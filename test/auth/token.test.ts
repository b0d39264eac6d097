/** Access tokens: pinned HS256, typ, iss/aud, expiry, kid rotation; missing and forged tokens are 401. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, UnsecuredJWT, base64url } from 'jose';
import { AuthCode } from '../../src/auth/codes.ts';
import { DelegationStore } from '../../src/auth/delegation.ts';
import { AccessTokens } from '../../src/auth/token.ts';
import { ALICE, BOB, NOW, refusalReply } from './fixtures.ts';

const KEY_1 = { kid: 'k1', secret: new Uint8Array(32).fill(1) };
const KEY_2 = { kid: 'k2', secret: new Uint8Array(32).fill(2) };
const clock = { now: NOW };
const tokens = new AccessTokens({ keys: [KEY_1], issuer: 'https://testnet.perp.example', audience: 'perp-api', now: () => clock.now });

function forged(header: Record<string, unknown>, claims: Record<string, unknown>, secret = KEY_1.secret) {
  const iat = Math.floor(NOW / 1000);
  return new SignJWT({ iss: 'https://testnet.perp.example', aud: 'perp-api', sub: ALICE, iat, exp: iat + 60, jti: 'j', ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'k1', ...header } as never)
    .sign(secret);
}

test('a token issued for Alice verifies from the Authorization header', async () => {
  const { token } = await tokens.issue(ALICE);
  assert.deepEqual(await tokens.verifyHeader(`Bearer ${token}`), { ok: true, value: ALICE });
  assert.deepEqual(await tokens.verify(await forged({}, {})), { ok: true, value: ALICE }, 'the forge helper makes valid tokens by default');
});

test('no header, or not a Bearer token: Please add the JWT token to the header (401)', async () => {
  for (const header of [undefined, null, '', 'Basic abc', 'Bearer']) {
    const result = await tokens.verifyHeader(header);
    assert.ok(!result.ok);
    assert.deepEqual(refusalReply(result), { status: 401, text: 'Please add the JWT token to the header' });
  }
});

test('alg none is refused', async () => {
  const iat = Math.floor(NOW / 1000);
  const unsecured = new UnsecuredJWT({ sub: ALICE, jti: 'j' }).setIssuer('https://testnet.perp.example').setAudience('perp-api').setIssuedAt(iat).setExpirationTime(iat + 60).encode();
  assert.deepEqual(await tokens.verify(unsecured), { ok: false, code: AuthCode.InvalidToken });
});

test('another algorithm (HS512) with the right key is refused: the algorithm is pinned', async () => {
  assert.deepEqual(await tokens.verify(await forged({ alg: 'HS512' }, {})), { ok: false, code: AuthCode.InvalidToken });
});

test('wrong audience, issuer, typ, subject or key is refused', async () => {
  const cases = [
    await forged({}, { aud: 'other-api' }),
    await forged({}, { iss: 'https://evil.example' }),
    await forged({ typ: 'JWT' }, {}),
    await forged({}, { sub: 'alice' }),
    await forged({}, { sub: ALICE.toUpperCase().replace('0X', '0x') }),
    await forged({}, {}, new Uint8Array(32).fill(7)),
    await forged({ kid: 'k9' }, {}),
    await forged({}, { jti: undefined }),
  ];
  for (const token of cases) assert.deepEqual(await tokens.verify(token), { ok: false, code: AuthCode.InvalidToken });
  const [head, body] = (await tokens.issue(ALICE)).token.split('.');
  assert.deepEqual(await tokens.verify(`${head}.${body}.${base64url.encode('x')}`), { ok: false, code: AuthCode.InvalidToken });
});

test('an expired token is 401 JWT token expired (beyond the 5 s tolerance)', async () => {
  const { token } = await tokens.issue(ALICE);
  clock.now = NOW + 900_000 + 4_000;
  assert.ok((await tokens.verify(token)).ok);
  clock.now = NOW + 900_000 + 6_000;
  const result = await tokens.verify(token);
  clock.now = NOW;
  assert.ok(!result.ok);
  assert.deepEqual(refusalReply(result), { status: 401, text: 'JWT token expired, please log in again' });
});

test('key rotation: a token signed with the old key verifies while the old key is listed', async () => {
  const old = (await tokens.issue(ALICE)).token;
  const rotated = new AccessTokens({ keys: [KEY_2, KEY_1], issuer: 'https://testnet.perp.example', audience: 'perp-api', now: () => clock.now });
  assert.deepEqual(await rotated.verify(old), { ok: true, value: ALICE });
  const retired = new AccessTokens({ keys: [KEY_2], issuer: 'https://testnet.perp.example', audience: 'perp-api', now: () => clock.now });
  assert.deepEqual(await retired.verify(old), { ok: false, code: AuthCode.InvalidToken });
});

test("Alice's token cannot read Bob's account", async () => {
  const caller = await tokens.verifyHeader(`Bearer ${(await tokens.issue(ALICE)).token}`);
  assert.ok(caller.ok);
  const result = new DelegationStore().authorizeCaller(caller.value, BOB, 0, 'read');
  assert.ok(!result.ok);
  assert.deepEqual(refusalReply(result), { status: 403, text: 'Not delegated for account and subaccount' });
});
