/**
 * @module journal/block-sink
 *
 * The journal's side of replication: the `BlockSink` contract (where flushed blocks go), and
 * `Shipping`, the journal's bookkeeping of what it hands the sink — the records appended since
 * the last flush began (the next block), and the seq from which the sink refused. The journal
 * owns its positions and its waiters; `Shipping` tells it, through `ShippedJournal`, which
 * seqs a block's outcome makes durable and from which seq on none will be.
 *
 * Outcomes: a sink that `holdsAcks` makes a block's seqs durable only once its promise
 * resolves; one that does not leaves them durable at the flush and is only told. A rejected
 * block refuses its seqs and every later one (the writer was fenced: another owns the copy).
 *
 * Invariants: blocks go to the sink in flush order, once each, and none after the first
 * refusal; a partly shipped block (`PartlyShipped`) acknowledges its stored prefix and refuses
 * from its first seq not stored; the refusal's `from` is lowered to the earliest refused seq
 * whatever order the refusals arrive in, and only ever lowered — the first refusal's error is
 * the one every refused seq is rejected with.
 * Complexity: O(1) per record kept and per block handed over; each refusal costs the journal a
 * pass over its waiters (`rejectFrom`).
 * Caller obligations: single thread (the journal's); `take` once per flush, `landed` with that
 * flush's block once it is on this disk, in flush order.
 *
 * May import: nothing.
 */

/**
 * Where flushed blocks go (replication). The journal is its consumer: it calls `block` once per
 * group commit, after the flush, in seq order, never twice for a seq.
 */
export interface BlockSink {
  /**
   * Records `firstSeq…` (whole records, views the journal never rewrites); resolves once shipped,
   * rejects if this writer is fenced. A sink that split the block and stored its first part
   * rejects with a `PartlyShipped` error: those seqs are durable, the rest refused.
   */
  block(firstSeq: number, records: readonly Uint8Array[]): Promise<void>;
  /** True: a seq is durable only once its block is shipped (`durable` waits for `block`'s promise). */
  readonly holdsAcks: boolean;
}

/** A sink's refusal of a block whose records up to `shippedThrough` it had stored (it split the block). */
export interface PartlyShipped extends Error {
  shippedThrough: number;
}

function shippedThrough(error: unknown): number | undefined {
  return error instanceof Error && typeof (error as Partial<PartlyShipped>).shippedThrough === 'number' ? (error as PartlyShipped).shippedThrough : undefined;
}

/** What `Shipping` needs of its journal: the journal's positions and waiters stay the journal's. */
export interface ShippedJournal {
  /** Records through `seq` are durable (flushed here and, with a sink that holds acks, stored by it). */
  markFlushed(seq: number): void;
  /** The highest seq durable so far. */
  flushedSeq(): number;
  /** No seq from `from` on becomes durable: reject those that wait, with `error`. */
  rejectFrom(from: number, error: Error): void;
  /** The sink refused for the first time, from `from` on: the operator's log line. */
  logRefusal(from: number, error: unknown): void;
}

export class Shipping {
  private readonly journal: ShippedJournal;
  private sink: BlockSink | null = null;
  /** Records appended since the last flush began, for the sink (kept only with one). */
  private unshipped: Uint8Array[] = [];
  /** The sink refused the block from seq `from` on (its writer was fenced): see `refuse`. */
  private refusal: { error: Error; from: number } | null = null;

  constructor(journal: ShippedJournal) {
    this.journal = journal;
  }

  /** True once a sink is attached. */
  attached(): boolean {
    return this.sink !== null;
  }

  /** From now on every flushed block goes to `sink` (the journal checks that nothing waits for a flush). */
  attach(sink: BlockSink): void {
    this.sink = sink;
  }

  /** The sink's refusal — the error, and the first seq refused — or null while it has refused nothing. */
  refused(): { readonly error: Error; readonly from: number } | null {
    return this.refusal;
  }

  /**
   * True when `durable(seq)` is the same as flushed to this disk: no sink, or one that does not
   * hold acks and has not refused. Otherwise the sink holds acknowledgements back, or refused them.
   */
  ackedAtFlush(): boolean {
    return this.sink === null || (!this.sink.holdsAcks && this.refusal === null);
  }

  /** A record appended: it goes in the block of the next flush. */
  keep(record: Uint8Array): void {
    if (this.sink !== null) this.unshipped.push(record);
  }

  /** The records kept since the last flush began: the block of the flush starting now. */
  take(): Uint8Array[] {
    const block = this.unshipped;
    this.unshipped = [];
    return block;
  }

  /**
   * The flush of `block` — the records through `upTo` — is on this disk: it goes to the sink, and
   * its seqs become durable as the sink allows (at once without a sink, or with an empty block).
   */
  landed(upTo: number, block: readonly Uint8Array[]): void {
    // Once refused, what is appended reaches this disk and goes no further: neither shipped nor acknowledged.
    if (this.refusal !== null) return;
    const sink = this.sink;
    if (sink === null || block.length === 0) {
      this.journal.markFlushed(upTo);
      return;
    }
    // Blocks are handed over in flush order; a sink that holds acks moves `durable` itself.
    const first = upTo - block.length + 1;
    const shipped = sink.block(first, block);
    // A refused block refuses the seqs from its first on: the blocks before it are still
    // being shipped (one in flight may yet be stored), and their own promises tell.
    // A block stored in part (the sink split it) refuses from its first seq not stored:
    // the others were acknowledged by the stream, and their writes were taken.
    if (sink.holdsAcks) {
      shipped.then(
        () => this.journal.markFlushed(upTo),
        (error: unknown) => {
          const through = Math.min(upTo, shippedThrough(error) ?? first - 1);
          if (through >= first) this.journal.markFlushed(through);
          this.refuse(error, Math.max(first, through + 1));
        },
      );
    }
    else {
      this.journal.markFlushed(upTo);
      shipped.catch((error: unknown) => this.refuse(error, this.journal.flushedSeq() + 1));
    }
  }

  /**
   * The sink refused the block from `from` on (its writer was fenced): no seq from there on
   * becomes durable — its waiters are rejected, the earlier ones left to their blocks' outcome
   * (one in flight may yet be stored) — and new commands are refused (the journal's `isBehind`).
   * The storage goes on: appends and local flushes (the events of commands in flight, history's
   * commits, a stop) are this disk's.
   */
  private refuse(error: unknown, from: number): void {
    if (this.refusal === null) {
      this.refusal = { error: error instanceof Error ? error : new Error(String(error)), from };
      this.journal.logRefusal(from, error);
    }
    // The blocks' refusals may come in any order (a fenced sink rejects what waits in its queue
    // before the block its refused publish held): every seq from the earliest refused one on is.
    if (from < this.refusal.from) this.refusal.from = from;
    this.journal.rejectFrom(this.refusal.from, this.refusal.error);
  }
}
