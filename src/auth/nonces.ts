/**
 * @module auth/nonces
 *
 * Replay protection for signed requests: a window of the highest accepted nonces per
 * (account, subaccountIndex, signer). Journaled state, pure and deterministic: no clock (the
 * time comes in with each call), no randomness, no I/O.
 *
 * May import: numeric/state-hash, types/address (types), ./codes.
 *
 * Rule (Hyperliquid's, design.md "nonces"): a nonce is accepted if it is not in the window and,
 * once the window holds `NONCE_WINDOW` (100) nonces, greater than the smallest of them; the
 * accepted nonce enters the window and the smallest leaves it. The window therefore always holds
 * the 100 highest nonces ever accepted for its key, so "unused" is exact: a used nonce is either
 * in the window or not above its minimum. Concurrent clients may submit out of order within the
 * window. `expiresAt ≤ now` is refused (`Request expired`).
 *
 * Invariants: dedupe is by (signer, nonce) inside (account, subaccountIndex), never by signature
 * bytes; a window is strictly increasing and holds at most 100 safe integers; nothing is ever
 * removed when a delegate is revoked, so its old signatures cannot replay.
 * Complexity: O(log 100) lookup, O(100) insert per accepted nonce; memory ~100 numbers per key.
 * Limits: nonce and expiresAt are JavaScript safe integers (≤ 2^53 − 1), not full uint64.
 */
import { stateHashOf } from '../numeric/state-hash.ts';
import type { Address } from '../types/address.ts';
import { accepted, AuthCode, refused, type AuthResult } from './codes.ts';

export const NONCE_WINDOW = 100;

export interface NonceKey {
  account: Address;
  subaccountIndex: number;
  signer: Address;
}

export interface NonceUse extends NonceKey {
  nonce: number;
  expiresAt: number;
}

export interface NonceSnapshot {
  version: 1;
  /** Sorted by key: [account, subaccountIndex, signer, window ascending]. */
  windows: Array<[Address, number, Address, number[]]>;
}

function keyOf(key: NonceKey): string {
  return `${key.account}|${key.subaccountIndex}|${key.signer}`;
}

/** Index of `nonce` in ascending `window`, or −(insertion point) − 1. */
function search(window: readonly number[], nonce: number): number {
  let lo = 0;
  let hi = window.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (window[mid] < nonce) lo = mid + 1;
    else if (window[mid] > nonce) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}

export class NonceStore {
  private readonly windows = new Map<string, number[]>();

  /** Whether `use` would accept this request at `now`, without recording anything. */
  check(use: NonceUse, now: number): AuthResult<void> {
    if (!Number.isSafeInteger(use.nonce) || use.nonce < 0) return refused(AuthCode.InvalidNonce);
    if (!Number.isSafeInteger(use.expiresAt) || use.expiresAt < 0) return refused(AuthCode.InvalidExpiresAt);
    if (use.expiresAt <= now) return refused(AuthCode.RequestExpired);
    const window = this.windows.get(keyOf(use));
    if (window === undefined) return accepted(undefined);
    if (search(window, use.nonce) >= 0) return refused(AuthCode.NonceUsed);
    if (window.length >= NONCE_WINDOW && use.nonce < window[0]) return refused(AuthCode.NonceTooLow, { min: String(window[0]) });
    return accepted(undefined);
  }

  /** Checks and records one nonce. */
  use(use: NonceUse, now: number): AuthResult<void> {
    const checked = this.check(use, now);
    if (checked.ok) this.record(use);
    return checked;
  }

  /**
   * All or nothing for a batch: refuses with the first failing element's index when any element
   * (or a repeated (key, nonce) inside the batch) is refused; otherwise records them all. Nonces
   * are recorded in ascending order, which keeps every pre-checked nonce above the moving minimum.
   */
  useMany(uses: readonly NonceUse[], now: number): AuthResult<void> & { index?: number } {
    const seen = new Set<string>();
    for (let i = 0; i < uses.length; i++) {
      const checked = this.check(uses[i], now);
      if (!checked.ok) return { ...checked, index: i };
      const id = `${keyOf(uses[i])}|${uses[i].nonce}`;
      if (seen.has(id)) return { ...refused(AuthCode.NonceUsed), index: i };
      seen.add(id);
    }
    for (const use of [...uses].sort((a, b) => a.nonce - b.nonce)) this.record(use);
    return accepted(undefined);
  }

  /** The nonce a client should sign next for this key: one above the highest accepted, or 0. */
  nextNonce(key: NonceKey): number {
    const window = this.windows.get(keyOf(key));
    return window === undefined ? 0 : window[window.length - 1] + 1;
  }

  /** The accepted nonces still in the window for this key, ascending. */
  window(key: NonceKey): readonly number[] {
    return this.windows.get(keyOf(key)) ?? [];
  }

  snapshot(): NonceSnapshot {
    const windows: NonceSnapshot['windows'] = [];
    for (const key of [...this.windows.keys()].sort()) {
      const [account, subaccountIndex, signer] = key.split('|');
      windows.push([account as Address, Number(subaccountIndex), signer as Address, [...this.windows.get(key)!]]);
    }
    return { version: 1, windows };
  }

  static restore(snapshot: NonceSnapshot): NonceStore {
    if (snapshot.version !== 1) throw new Error(`unknown nonce snapshot version ${String(snapshot.version)}`);
    const store = new NonceStore();
    for (const [account, subaccountIndex, signer, window] of snapshot.windows) store.windows.set(keyOf({ account, subaccountIndex, signer }), [...window]);
    store.validateInternalState();
    return store;
  }

  /** sha256 of the canonical snapshot, hex; equal states give equal hashes. */
  stateHash(): string {
    return stateHashOf(this.snapshot());
  }

  validateInternalState(): void {
    for (const [key, window] of this.windows) {
      if (window.length === 0 || window.length > NONCE_WINDOW) throw new Error(`nonce window ${key} has ${window.length} entries`);
      for (let i = 0; i < window.length; i++) {
        if (!Number.isSafeInteger(window[i]) || window[i] < 0) throw new Error(`nonce window ${key} holds ${window[i]}`);
        if (i > 0 && window[i] <= window[i - 1]) throw new Error(`nonce window ${key} is not strictly increasing`);
      }
    }
  }

  private record(use: NonceUse): void {
    const key = keyOf(use);
    let window = this.windows.get(key);
    if (window === undefined) {
      window = [];
      this.windows.set(key, window);
    }
    window.splice(-search(window, use.nonce) - 1, 0, use.nonce);
    if (window.length > NONCE_WINDOW) window.shift();
  }
}
