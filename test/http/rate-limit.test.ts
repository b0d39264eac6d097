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
