/**
 * What the faucet tests share (test/behaviour/api-faucet and api-faucet-restart): the
 * allowance's refusal text, a credit, five credits, the sixth refused naming the next 00:00 UTC
 * of the exchange's clock, and a start clear of midnight on that clock.
 */
import assert from 'node:assert/strict';
import { ok, sub } from './api-helpers.ts';
import type { Trader } from './traders.ts';

const DAY_MS = 86_400_000;
const ALLOWANCE_USED = /^Faucet allowance used: at most 50000 USD \(5 credits of 10000\) per account per UTC day; it resets at (\S+) \(00:00 UTC\)$/;

/** The exchange's clock, and moving it on (test/e2e/harness: the wall clock; the in-process exchange's own). */
export interface ExchangeTime {
  now(): number;
  advance(ms: number): Promise<void>;
}

/** A credit a minute before midnight UTC and the next one after it fall in different days: start clear of it. */
export async function clearOfMidnight(ex: ExchangeTime): Promise<void> {
  const left = DAY_MS - (ex.now() % DAY_MS);
  if (left < 60_000) await ex.advance(left + 100);
}

export const faucet = (t: Trader, subaccountIndex = 0, account = t.address) => t.send('POST', '/faucet', { account, subaccountIndex });

/** Five credits to `t`, each 200 `null`. */
export async function takeAllowance(t: Trader): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const r = await faucet(t, i % 2);
    assert.equal(r.status, 200, `credit ${i + 1}: ${r.text}`);
    assert.equal(r.text, 'null');
  }
}

/** The sixth credit of the day: 429 naming the allowance and the next 00:00 UTC, with Retry-After until then. */
export async function assertAllowanceUsed(ex: ExchangeTime, t: Trader, subaccountIndex = 0): Promise<void> {
  const r = await faucet(t, subaccountIndex);
  assert.equal(r.status, 429, r.text);
  const reset = ALLOWANCE_USED.exec(r.text)?.[1];
  assert.ok(reset !== undefined, `the text names the allowance and its reset: ${r.text}`);
  const nextMidnight = (Math.floor(ex.now() / DAY_MS) + 1) * DAY_MS;
  assert.equal(Date.parse(reset), nextMidnight);
  const retryAfter = Number(r.headers.get('retry-after'));
  assert.ok(Math.abs(retryAfter - (nextMidnight - ex.now()) / 1000) < 5, `Retry-After ${retryAfter} s is the time to 00:00 UTC`);
}

export const balance = async (t: Trader, subaccountIndex = 0) => ok(await t.get(`/account/balance?${sub(t, subaccountIndex)}`)).collateral;
