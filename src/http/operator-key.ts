/**
 * @module http/operator-key
 *
 * The door of the operator API: the `X-Operator-Key` header, compared in constant time, and a
 * lock-out of the source addresses that guess. A wrong or missing key is 401 for the first
 * `OPERATOR_KEY_FAILURES` failures of an address; after that the address is refused with 429
 * and `Retry-After` for `OPERATOR_LOCKOUT_MS`, whatever key it sends (a correct guess during the
 * lock-out would otherwise be told apart from a wrong one), and earns one more attempt a minute.
 * 2,000 guesses a second become five, then one a minute.
 *
 * Invariants: the key is compared as SHA-256 digests with `timingSafeEqual` (fixed length, so
 * neither the key's length nor its prefix leaks through timing); only failures spend the budget.
 * It is the operator routes' `Door` (http/endpoint): the key is checked before anything of the
 * request is read, its query too.
 * May import: node:crypto, http/errors, http/rate-limit, http/endpoint (types).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { plainText, say, type DocumentedError } from './errors.ts';
import { RateLimiter } from './rate-limit.ts';
import type { Door } from './endpoint.ts';

/** Wrong keys an address may send before it is locked out. */
export const OPERATOR_KEY_FAILURES = 5;
/** How long a locked-out address is refused. */
const OPERATOR_LOCKOUT_MS = 60_000;
const SWEEP_EVERY_MS = 10_000;

export const WRONG_OPERATOR_KEY: DocumentedError = [401, 'Operator key missing or wrong: send X-Operator-Key'];
export const OPERATOR_LOCKED_OUT: DocumentedError = [429, 'Too many wrong operator keys from this address, retry after <n> s'];

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** What stands before every operator route: the key checked, failures counted per source address. */
export function operatorKeyGuard(operatorKey: string, clock: () => number): Door<undefined> {
  const key = digest(operatorKey);
  // One failure a minute refills; five at once from a full budget.
  const failures = new RateLimiter(1 / 60, OPERATOR_LOCKOUT_MS, OPERATOR_KEY_FAILURES);
  let lastSweep = 0;
  const lockedOut = (seconds: number) => plainText(OPERATOR_LOCKED_OUT[0], say(OPERATOR_LOCKED_OUT[1], seconds), { 'retry-after': String(seconds) });

  return (req, next) => {
    const now = clock();
    if (now - lastSweep >= SWEEP_EVERY_MS) {
      failures.sweep(now);
      lastSweep = now;
    }
    const locked = failures.retryAfter(req.remoteAddress, now);
    if (locked > 0) return lockedOut(locked);
    if (timingSafeEqual(digest(req.operatorKey), key)) return next(req, undefined);
    const budget = failures.take(req.remoteAddress, now);
    return budget.allowed ? plainText(...WRONG_OPERATOR_KEY) : lockedOut(budget.retryAfterSeconds);
  };
}
