import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from '../../src/http/rate-limit.ts';

test('200 requests in one second pass, the 201st is refused with a retry time', () => {
  const limiter = new RateLimiter(200);
  const now = 1_000_000;
  for (let i = 0; i < 200; i++) assert.equal(limiter.take('alice', now).allowed, true, `request ${i}`);
  const refused = limiter.take('alice', now);
  assert.equal(refused.allowed, false);
  assert.equal(refused.remaining, 0);
  assert.ok(refused.retryAfterSeconds >= 1);
});

test('remaining counts down with each request', () => {
  const limiter = new RateLimiter(200);
  assert.equal(limiter.take('k', 0).remaining, 199);
  assert.equal(limiter.take('k', 0).remaining, 198);
});

test('a steady 200 per second is never refused; 250 per second is', () => {
  const steady = new RateLimiter(200);
  for (let i = 0; i < 2000; i++) assert.equal(steady.take('k', i * 5).allowed, true, `at ${i * 5} ms`);
  const fast = new RateLimiter(200);
  let refused = 0;
  for (let i = 0; i < 2500; i++) if (!fast.take('k', i * 4).allowed) refused++;
  assert.ok(refused > 0);
});

test('keys are independent, and a refused key cools down before it is served again', () => {
  const limiter = new RateLimiter(200, 1000);
  for (let i = 0; i < 201; i++) limiter.take('a', 0);
  assert.equal(limiter.take('b', 0).allowed, true);
  assert.equal(limiter.take('a', 500).allowed, false);
  assert.equal(limiter.take('a', 2100).allowed, true);
});

test('sweep forgets refilled keys only', () => {
  const limiter = new RateLimiter(200);
  limiter.take('old', 0);
  limiter.take('new', 10_000);
  limiter.sweep(10_000);
  assert.equal(limiter.size, 1);
});

test('after its cool-down a refused key has its budget back: a whole second of requests, not one', () => {
  const limiter = new RateLimiter(200, 1000);
  for (let i = 0; i < 200; i++) limiter.take('a', 0);
  const refused = limiter.take('a', 0);
  assert.deepEqual([refused.allowed, refused.retryAfterSeconds], [false, 1]);
  // Hammering during the cool-down gets nothing through, and does not lengthen it.
  for (let at = 1; at < 1000; at += 7) assert.equal(limiter.take('a', at).allowed, false, `at ${at} ms`);
  let served = 0;
  while (limiter.take('a', 1000).allowed) served++;
  assert.equal(served, 200);
});

test('a client that waits out Retry-After each time goes on at the rate, not one request per cool-down', () => {
  // One request at a time, each answered in 1 ms (five times the budget's rate), sleeping Retry-After when refused.
  const limiter = new RateLimiter(200, 1000);
  let now = 0;
  let served = 0;
  while (now < 10_000) {
    const budget = limiter.take('reader', now);
    if (budget.allowed) served++;
    now += budget.allowed ? 1 : budget.retryAfterSeconds * 1000;
  }
  assert.ok(served >= 900, `${served} requests served in 10 s`);
});
