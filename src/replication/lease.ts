/**
 * @module replication/lease
 *
 * Who the primary is: one key in a JetStream key-value bucket (`LeaseKey`, replication/jetstream),
 * holding the holder's id and public URL, renewed by the primary every third of the lease time
 * with a compare-and-set on the key's revision. Nothing here reads a clock of another machine: a
 * standby calls the lease expired when it has seen no new revision for `leaseMs` of its own time,
 * and takes it with the same compare-and-set, so of two takers one wins.
 *
 * A holder whose renewal finds another revision has lost the lease (`whenLost`); one that cannot
 * reach the bucket for `leaseMs` stops calling itself the holder (`held()` false) until a
 * renewal succeeds again — by then a standby may have taken it, which the renewal finds. A
 * write counts from when it was sent, not when its answer is read: a standby times the lease
 * from when it saw the write, which is later, so the holder stops calling itself one before a
 * standby may take it. Timed from the answer, a primary paused (SIGSTOP, a stalled VM) past the
 * lease with an answer waiting in its socket held the lease again as it resumed, and took the
 * writes that had waited with it while a standby was taking over (test/replication/failover-chaos,
 * seeds 25 and 26; test/replication/lease).
 *
 * Its times are the process's monotonic clock (`performance.now`), never the host's wall clock:
 * they only measure how long since a write or a sighting, and a step of the wall clock is no time
 * passing. On the wall clock, a holder whose clock stepped back an hour while it could not reach
 * the bucket called itself the holder for that hour more, taking writes while a standby took
 * over, and a standby whose clock stepped back waited that hour before calling a lapsed lease
 * expired (test/replication/lease).
 *
 * May import: nothing.
 */

/** Milliseconds on a clock no step of the wall clock moves. */
const elapsed = (): number => performance.now();

/** The one key the lease lives in (replication/jetstream's `leaseKey`). */
export interface LeaseKey {
  /** Its value (null: deleted, or never written) and its revision (0: no entry at all). */
  read(): Promise<{ value: Uint8Array | null; revision: number }>;
  /** Writes `value` (null deletes it) if its revision is still `revision`: resolves with the new revision, rejects otherwise. */
  write(value: Uint8Array | null, revision: number): Promise<number>;
}

export interface LeaseValue {
  /** A random id of the holding process (a restarted primary is a new holder). */
  holder: string;
  /** Where clients reach the primary. */
  url: string;
}

export interface LeaseView {
  holder: string;
  url: string;
  revision: number;
  /** Milliseconds since this node last saw the lease renewed. */
  ageMs: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Lease {
  private seen: { value: LeaseValue; revision: number; at: number } | null = null;
  /** The key's revision as last read (a deleted key has one too: what a take writes over). */
  private revision = 0;
  private renewer: ReturnType<typeof setInterval> | undefined;
  private watcher: ReturnType<typeof setInterval> | undefined;
  /** Revision of our own last write while we hold it. */
  private ownRevision = 0;
  private lastRenewal = 0;
  private lost = false;
  private lostListeners: Array<(holder: LeaseView | null) => void> = [];

  constructor(
    private readonly key: LeaseKey,
    /** This node; its `url` may be set once the gateway has bound its port (written at the next renewal). */
    readonly me: LeaseValue,
    readonly leaseMs: number,
  ) {}

  /** The lease as last seen (null if never held by anyone). */
  view(): LeaseView | null {
    if (this.seen === null) return null;
    return { holder: this.seen.value.holder, url: this.seen.value.url, revision: this.seen.revision, ageMs: elapsed() - this.seen.at };
  }

  /** Reads the key; notes when its revision changed. */
  async refresh(): Promise<LeaseView | null> {
    const { value, revision } = await this.key.read();
    this.revision = revision;
    if (value === null) {
      this.seen = null;
      return null;
    }
    if (this.seen === null || this.seen.revision !== revision) {
      this.seen = { value: JSON.parse(decoder.decode(value)) as LeaseValue, revision, at: elapsed() };
    }
    return this.view();
  }

  /** True when nobody has renewed the lease for `leaseMs` (of this node's time) or nobody ever held it. */
  expired(): boolean {
    return this.seen === null || elapsed() - this.seen.at > this.leaseMs;
  }

  /**
   * Takes the lease if it is free or expired: resolves true once held (compare-and-set on the
   * revision seen), false if another holder renews it or wins the race.
   */
  async take(): Promise<boolean> {
    await this.refresh();
    if (this.seen !== null && this.seen.value.holder !== this.me.holder && !this.expired()) return false;
    const sentAt = elapsed();
    try {
      this.ownRevision = await this.key.write(encoder.encode(JSON.stringify(this.me)), this.revision);
    } catch {
      return false;
    }
    this.seen = { value: this.me, revision: this.ownRevision, at: sentAt };
    this.lastRenewal = sentAt;
    return true;
  }

  /** Waits until the lease can be taken (the holder stops renewing) or `give up` says stop. */
  async takeWhenFree(giveUp: () => boolean): Promise<boolean> {
    while (!giveUp()) {
      if (await this.take()) return true;
      await new Promise((resolve) => setTimeout(resolve, this.leaseMs / 4));
    }
    return false;
  }

  /** Calls `listener` once another holder is found while this node holds the lease. */
  whenLost(listener: (holder: LeaseView | null) => void): void {
    this.lostListeners.push(listener);
  }

  /** Renews every third of the lease time; the `whenLost` listeners hear when another holder is found. */
  hold(): void {
    this.renewer = setInterval(async () => {
      if (this.lost) return;
      const sentAt = elapsed();
      try {
        this.ownRevision = await this.key.write(encoder.encode(JSON.stringify(this.me)), this.ownRevision);
        this.lastRenewal = Math.max(this.lastRenewal, sentAt);
        this.seen = { value: this.me, revision: this.ownRevision, at: this.lastRenewal };
      } catch {
        // Another revision (someone took it), or NATS out of reach: look.
        const now = await this.refresh().catch(() => undefined);
        if (now !== undefined && (now === null || now.holder !== this.me.holder)) {
          this.lost = true;
          clearInterval(this.renewer);
          for (const listener of this.lostListeners) listener(now);
        }
      }
    }, this.leaseMs / 3);
  }

  /** While holding: true unless a renewal has not succeeded for `leaseMs` or the lease was lost. */
  held(): boolean {
    return !this.lost && elapsed() - this.lastRenewal <= this.leaseMs;
  }

  /** Polls the key (a standby): `view()` and `expired()` follow it. */
  watch(): void {
    this.watcher = setInterval(() => void this.refresh().catch(() => {}), this.leaseMs / 4);
  }

  /** Gives the lease up (a clean stop: a standby need not wait for it to expire). */
  async release(): Promise<void> {
    this.stop();
    if (this.lost || this.ownRevision === 0) return;
    await this.key.write(null, this.ownRevision).catch(() => {});
  }

  stop(): void {
    clearInterval(this.renewer);
    clearInterval(this.watcher);
  }
}
