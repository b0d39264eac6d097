/**
 * The subaccount event log keeps one entry per journal record and subaccount (history/
 * account-events, format 5): a resuming feed reads the events after any number, whichever
 * entry it falls in, oldest first, at most its limit; the newest number is the newest entry's key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AccountEventLog, type AccountEventRecord } from '../../src/history/account-events.ts';
import { ownerNo } from '../fixtures/ids.ts';
import { openTempHistory } from './temp-store.ts';

const ALICE = ownerNo(1);
const BOB = ownerNo(2);

const balance = (owner: typeof ALICE, seq: number): AccountEventRecord => ({ owner, seq, kind: 'balance', balance: { delta: String(seq), collateral: '0', reason: 'fill', time: seq } });

/** Alice's events 1–7 in entries of 1, 4 and 2 (three records); Bob's 1–3 in one, between them. */
function aliceAndBob() {
  const h = openTempHistory();
  const log = new AccountEventLog(h.root);
  const alice = [1, 2, 3, 4, 5, 6, 7].map((seq) => balance(ALICE, seq));
  h.write(() => {
    log.onAccountEvents(alice.slice(0, 1));
    log.onAccountEvents([1, 2, 3].map((seq) => balance(BOB, seq)));
    log.onAccountEvents(alice.slice(1, 5));
  });
  h.write(() => log.onAccountEvents(alice.slice(5)));
  return { log, alice };
}

test('a resume from any number reads every later event of its subaccount, from inside an entry too', () => {
  const { log, alice } = aliceAndBob();
  for (let after = 0; after <= 7; after++) assert.deepEqual(log.after(ALICE, after, 100), alice.slice(after), `after ${after}`);
  assert.deepEqual(log.after(BOB, 1, 100).map((e) => e.seq), [2, 3]);
});

test('a resume reads at most its limit, across entries', () => {
  const { log, alice } = aliceAndBob();
  assert.deepEqual(log.after(ALICE, 0, 3), alice.slice(0, 3));
  assert.deepEqual(log.after(ALICE, 2, 4), alice.slice(2, 6));
  assert.deepEqual(log.after(ALICE, 0, 0), []);
});

test("the newest number is the newest entry's last event's", () => {
  const { log } = aliceAndBob();
  assert.equal(log.lastSeq(ALICE), 7);
  assert.equal(log.lastSeq(BOB), 3);
  assert.equal(log.lastSeq(ownerNo(3)), 0);
});
