/**
 * src/types/ids: the identifiers keep apart at compile time and are the bare numbers at run
 * time. The `@ts-expect-error` lines are the test of the first: `npm run typecheck` (run by
 * `npm test`) fails when one of them compiles, that is when an account index could go where
 * an owner index is asked for, or a bare number where either is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asAccountIndex, asOwnerIndex, NO_ACCOUNT, NO_OWNER, type AccountIndex, type OwnerIndex } from '../../src/types/ids.ts';

const ownerOnly = (owner: OwnerIndex): number => owner;
const accountOnly = (account: AccountIndex): number => account;

test('an owner index and an account index never mix, and neither is conjured from a bare number', () => {
  const owner = asOwnerIndex(3);
  const account = asAccountIndex(3);
  // @ts-expect-error an account (an address) is not an owner (an address and a subaccount)
  ownerOnly(account);
  // @ts-expect-error an owner is not an account
  accountOnly(owner);
  // @ts-expect-error a bare number is no owner: it is made by the ledger's registry or where it enters
  ownerOnly(3);
  // @ts-expect-error the account of no account is not the owner of no owner
  ownerOnly(NO_ACCOUNT);
  assert.equal(ownerOnly(owner), 3, 'a branded number is the number');
  assert.equal(accountOnly(account), 3);
  assert.equal(ownerOnly(NO_OWNER), 0, 'the ledger interns owners from 1');
});
