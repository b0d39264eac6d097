/** Delegation store and the spec's authorization rules and texts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthCode } from '../../src/auth/codes.ts';
import { DelegationStore, parseScopes } from '../../src/auth/delegation.ts';
import { ALICE, BOB, CAROL, refusalReply } from './fixtures.ts';

function aliceGrants(delegate: string, scopes: string, subaccountIndex = 0) {
  return { account: ALICE, subaccountIndex, delegate, scopes, action: 'add' };
}
const BOB_TRADES_FOR_ALICE = aliceGrants(BOB, 'trade');
const CAROL_READS_FOR_ALICE = aliceGrants(CAROL, 'read');

test('Alice grants Bob trade and Carol read; signers lists Alice and Bob; delegates lists both', () => {
  const store = new DelegationStore();
  assert.ok(store.apply(BOB_TRADES_FOR_ALICE, ALICE).ok);
  assert.ok(store.apply(CAROL_READS_FOR_ALICE, ALICE).ok);
  assert.deepEqual(store.signers(ALICE, 0), [ALICE, BOB]);
  assert.deepEqual(store.signers(ALICE, 1), [ALICE]);
  assert.deepEqual(store.delegates(ALICE).map((g) => [g.delegate, g.scopes.join(',')]), [[BOB, 'trade'], [CAROL, 'read']].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
});

test('only the account itself changes its delegates; self-delegation, bad scopes and unknown removals are refused', () => {
  const store = new DelegationStore();
  store.apply(BOB_TRADES_FOR_ALICE, ALICE);
  assert.deepEqual(store.apply(aliceGrants(CAROL, 'trade'), BOB), { ok: false, code: AuthCode.DelegationNotAllowed }, 'a delegate may not add delegates');
  assert.deepEqual(store.apply(aliceGrants(BOB, 'trade'), CAROL), { ok: false, code: AuthCode.InvalidSignature }, 'a stranger signing for Alice');
  assert.deepEqual(store.apply(aliceGrants(ALICE, 'trade'), ALICE), { ok: false, code: AuthCode.SelfDelegation });
  assert.deepEqual(store.apply(aliceGrants(CAROL, 'withdraw'), ALICE), { ok: false, code: AuthCode.InvalidScopes });
  assert.deepEqual(store.apply(aliceGrants(CAROL, ''), ALICE), { ok: false, code: AuthCode.InvalidScopes });
  assert.deepEqual(store.apply({ ...aliceGrants(CAROL, ''), action: 'remove' }, ALICE), { ok: false, code: AuthCode.DelegateNotFound });
  assert.deepEqual(store.apply({ ...aliceGrants(CAROL, 'read'), action: 'grant' }, ALICE), { ok: false, code: AuthCode.InvalidField, params: { field: 'action' } });
  assert.deepEqual(store.apply(aliceGrants(CAROL, 'read', -1), ALICE), { ok: false, code: AuthCode.InvalidSubaccountIndex });
  assert.deepEqual(parseScopes('read, trade'), ['trade', 'read']);
  assert.equal(parseScopes('trade,trade'), undefined);
});

test('orders: the account or a trade delegate; others get the spec texts, strangers Invalid signature', () => {
  const store = new DelegationStore();
  store.apply(BOB_TRADES_FOR_ALICE, ALICE);
  store.apply(CAROL_READS_FOR_ALICE, ALICE);
  assert.deepEqual(refusalReply(store.authorizeWrite({ action: 'order', account: CAROL, subaccountIndex: 0, signer: BOB }) as never), { status: 400, text: 'Invalid signature' });
  const order = (signer: typeof ALICE, subaccountIndex = 0) => store.authorizeWrite({ action: 'order', account: ALICE, subaccountIndex, signer });
  assert.ok(order(ALICE).ok);
  assert.ok(order(BOB).ok);
  assert.deepEqual(refusalReply(order(BOB, 1) as never), { status: 403, text: 'Not delegated for account and subaccount' });
  assert.deepEqual(refusalReply(order(CAROL) as never), { status: 403, text: 'Delegation not allowed for request' });
  assert.deepEqual(refusalReply(order(ALICE, 2 ** 31) as never), { status: 400, text: 'Invalid subaccount index' });
});

test('margin updates by a read-only delegate: Unauthorized to change margin for account <account>', () => {
  const store = new DelegationStore();
  store.apply(BOB_TRADES_FOR_ALICE, ALICE);
  store.apply(CAROL_READS_FOR_ALICE, ALICE);
  assert.ok(store.authorizeWrite({ action: 'marginUpdate', account: ALICE, subaccountIndex: 0, signer: BOB }).ok);
  const refused = store.authorizeWrite({ action: 'marginUpdate', account: ALICE, subaccountIndex: 0, signer: CAROL });
  assert.deepEqual(refusalReply(refused as never), { status: 403, text: `Unauthorized to change margin for account ${ALICE}` });
  const stranger = store.authorizeWrite({ action: 'marginUpdate', account: BOB, subaccountIndex: 0, signer: CAROL });
  assert.deepEqual(stranger, { ok: false, code: AuthCode.InvalidSignature });
});

test('transfers: only the debited account, as target; a delegate (even with trade) is refused', () => {
  const store = new DelegationStore();
  store.apply(aliceGrants(BOB, 'trade,read'), ALICE);
  const transfer = (signer: typeof ALICE, target = ALICE) => store.authorizeWrite({ action: 'transfer', accountFrom: ALICE, subaccountIndexFrom: 0, subaccountIndexTo: 1, target, signer });
  assert.ok(transfer(ALICE).ok);
  assert.deepEqual(refusalReply(transfer(BOB) as never), { status: 403, text: 'Delegation not allowed for request' });
  assert.deepEqual(refusalReply(transfer(BOB, BOB) as never), { status: 403, text: 'Delegation not allowed for request' });
  assert.deepEqual(refusalReply(transfer(CAROL) as never), { status: 400, text: 'Invalid signature' });
});

test('token callers: reads need the account or a delegate with read or trade (trade includes read); trades need trade', () => {
  const store = new DelegationStore();
  store.apply(BOB_TRADES_FOR_ALICE, ALICE);
  store.apply(CAROL_READS_FOR_ALICE, ALICE);
  assert.ok(store.authorizeCaller(ALICE, ALICE, 0, 'read').ok);
  assert.ok(store.authorizeCaller(CAROL, ALICE, 0, 'read').ok);
  assert.ok(store.authorizeCaller(BOB, ALICE, 0, 'read').ok, 'a trade delegate sees what it trades');
  assert.deepEqual(store.authorizeCaller(CAROL, ALICE, 0, 'trade'), { ok: false, code: AuthCode.DelegationNotAllowed });
  assert.deepEqual(store.authorizeCaller(CAROL, ALICE, 3, 'read'), { ok: false, code: AuthCode.NotDelegated });
  assert.deepEqual(store.authorizeCaller(BOB, CAROL, 0, 'read'), { ok: false, code: AuthCode.NotDelegated });
  assert.deepEqual(store.authorizeCaller(ALICE, ALICE, '0', 'read'), { ok: false, code: AuthCode.InvalidSubaccountIndex });
  assert.ok(store.authorizeCaller(BOB, ALICE, 0, 'trade').ok, 'a trade delegate may cancel with its token');
});

test('revocation removes the grant; snapshot/restore keeps state and hash', () => {
  const store = new DelegationStore();
  store.apply(BOB_TRADES_FOR_ALICE, ALICE);
  store.apply(CAROL_READS_FOR_ALICE, ALICE);
  const before = store.stateHash();
  const restored = DelegationStore.restore(JSON.parse(JSON.stringify(store.snapshot())));
  assert.equal(restored.stateHash(), before);
  assert.ok(restored.apply({ ...BOB_TRADES_FOR_ALICE, action: 'remove', scopes: '' }, ALICE).ok);
  assert.deepEqual(restored.signers(ALICE, 0), [ALICE]);
  assert.notEqual(restored.stateHash(), before);
  restored.validateInternalState();
  assert.throws(() => DelegationStore.restore({ version: 1, grants: [[ALICE, 0, ALICE, ['trade']]] }), /bad delegate/);
});
