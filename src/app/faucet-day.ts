/**
 * @module app/faucet-day
 *
 * How much the testnet faucet has credited each address in the current UTC day: the state its
 * daily allowance is checked against (issue 14, item 9). Part of the exchange's journaled state:
 * every accepted `Faucet` command is recorded at its own time, so replaying the journal rebuilds
 * it exactly, and snapshots carry it (no side file, nothing a restart forgets).
 *
 * A `Faucet` command that carries an `allowance` (what POST /faucet sends) is refused when the
 * address's credits today plus its amount would exceed it; one without (the simulator, benches)
 * is only recorded. The allowance travels in the journaled command, so a replay applies the
 * rule the live exchange applied.
 *
 * May import: numeric/state-hash, types/address (types). Pure: time is passed in.
 * Invariants: only the current day's credits are held (the first credit of a new UTC day forgets
 * the day before), so memory is bounded by the addresses that used the faucet today; a command
 * dated before the held day (a clock stepped back) counts towards the held day, never resets it.
 */
import { stateHashOf } from '../numeric/state-hash.ts';
import type { Address } from '../types/address.ts';

export const DAY_MS = 86_400_000;

/** The UTC day number of a time in ms. */
export const utcDay = (time: number): number => Math.floor(time / DAY_MS);

export interface FaucetDaySnapshot {
  /** UTC day number of `credited`; -1 before the first credit. */
  day: number;
  /** [address, amount credited that day], sorted by address. */
  credited: Array<[Address, bigint]>;
}

export class FaucetDay {
  private day = -1;
  private readonly credited = new Map<Address, bigint>();

  /** What `address` has received from the faucet in the UTC day of `time`. */
  creditedOn(address: Address, time: number): bigint {
    return utcDay(time) > this.day ? 0n : (this.credited.get(address) ?? 0n);
  }

  /** Whether crediting `amount` at `time` keeps `address` within `allowance` for that UTC day. */
  allows(address: Address, amount: bigint, allowance: bigint, time: number): boolean {
    return this.creditedOn(address, time) + amount <= allowance;
  }

  record(address: Address, amount: bigint, time: number): void {
    const day = utcDay(time);
    if (day > this.day) {
      this.credited.clear();
      this.day = day;
    }
    this.credited.set(address, (this.credited.get(address) ?? 0n) + amount);
  }

  snapshot(): FaucetDaySnapshot {
    return { day: this.day, credited: [...this.credited].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) };
  }

  /** From a snapshot; snapshots written before the faucet had an allowance carry none (an empty day). */
  static restore(snapshot: FaucetDaySnapshot | undefined): FaucetDay {
    const restored = new FaucetDay();
    if (snapshot === undefined) return restored;
    restored.day = snapshot.day;
    for (const [address, amount] of snapshot.credited) restored.credited.set(address, amount);
    return restored;
  }

  /** The one recipe (numeric/state-hash) over the snapshot. */
  stateHash(): string {
    return stateHashOf(this.snapshot());
  }
}
