import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, harness } from './fixtures.ts';
import { accountNo } from '../fixtures/ids.ts';
import { NO_OWNER } from '../../src/types/ids.ts';

test('owners and accounts are interned in first-use order, lowercase, with lookups both ways', () => {
  const h = harness();
  const upper = '0x' + 'A'.repeat(40);
  const a0 = h.id(upper, 0);
  const b0 = h.id(BOB, 0);
  const a1 = h.id(ALICE, 1);
  assert.deepEqual([a0, b0, a1], [1, 2, 3]);
  assert.equal(h.id(ALICE, 0), a0, 'the same pair gives the same id');
  assert.deepEqual(h.ledger.identity(a1), { owner: 3, account: 1, address: ALICE, subaccountIndex: 1 });
  assert.equal(h.ledger.identity(b0)!.account, 2);
  assert.equal(h.ledger.registry.addressOf(accountNo(2)), BOB);
  assert.equal(h.ledger.registry.findAccount(upper), 1);
  assert.deepEqual(h.ledger.registry.ownersOf(accountNo(1)), [1, 3]);
  assert.equal(h.ledger.findOwner(ALICE, 7), undefined);
  assert.equal(h.ledger.identity(NO_OWNER), undefined);
  h.ledger.validateInternalState();
});
