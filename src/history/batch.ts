/**
 * @module history/batch
 *
 * One batch of history: the records a stretch of the journal projects to, and the journal
 * position it brings the projections to. A batch is plain data (it crosses threads packed, see
 * history/history-wire), so the
 * projections can write it on the thread that replays the journal or hand it to the projection
 * thread; `HistoryStore.write` is the one place a batch becomes LMDB writes, in one
 * transaction together with the position it covers.
 *
 * May import: history/, lmdb (types).
 */
import type { Database, RootDatabase } from 'lmdb';
import { HistoryWriter } from './writer.ts';
import { TransferHistory, type TransferRecord } from './transfers.ts';
import { HISTORY_FORMAT, openHistoryDatabases } from './store.ts';
import { AccountEventLog, type AccountEventRecord } from './account-events.ts';
import type { AccountFillRecord, FundingRateRecord, TradeRecord } from './types.ts';

/**
 * A subaccount's events travel as one write per journal record (history/account-events): an
 * order's change in them is written to the orders projection and to the subaccount's log from
 * the same record.
 */
export type HistoryWrite =
  | { kind: 'accountEvents'; events: AccountEventRecord[] }
  | { kind: 'trade'; record: TradeRecord }
  | { kind: 'fill'; record: AccountFillRecord }
  | { kind: 'fundingRate'; record: FundingRateRecord }
  | { kind: 'transfer'; record: TransferRecord };

export interface HistoryBatch {
  /** The journal sequence number every record up to is projected once this batch is written. */
  seq: number;
  /** Transfers numbered so far (numbering continues across restarts). */
  transferCount: number;
  writes: HistoryWrite[];
}

/** Where the projections stand: read at start-up, written with every batch. */
export interface HistoryPosition {
  seq: number;
  transferCount: number;
  /** The layout it was written in (`HISTORY_FORMAT`); undefined before format 2. */
  format: number | undefined;
}

/** The projections' databases in one environment, written a batch at a time. */
export class HistoryStore {
  private readonly writer: HistoryWriter;
  readonly transfers: TransferHistory;
  readonly accountEvents: AccountEventLog;
  private readonly meta: Database<number, string>;

  constructor(root: RootDatabase) {
    this.writer = new HistoryWriter(openHistoryDatabases(root));
    this.transfers = new TransferHistory(root);
    this.accountEvents = new AccountEventLog(root);
    this.meta = root.openDB<number, string>({ name: 'history.meta' });
  }

  position(): HistoryPosition {
    return { seq: this.meta.get('projectedSeq') ?? 0, transferCount: this.meta.get('transferCount') ?? 0, format: this.meta.get('format') };
  }

  /** Writes the batch and its position in one transaction; throws with nothing written. */
  write(batch: HistoryBatch): void {
    this.writer.batch(
      (w) => {
        for (const write of batch.writes) {
          switch (write.kind) {
            case 'accountEvents':
              for (const e of write.events) if (e.kind === 'order') w.onOrderUpdate(e.order);
              this.accountEvents.onAccountEvents(write.events);
              break;
            case 'trade': w.onTrade(write.record); break;
            case 'fill': w.onFill(write.record); break;
            case 'fundingRate': w.onFundingRate(write.record); break;
            case 'transfer': this.transfers.onTransfer(write.record); break;
          }
        }
      },
      () => {
        this.meta.putSync('projectedSeq', batch.seq);
        this.meta.putSync('transferCount', batch.transferCount);
        this.meta.putSync('format', HISTORY_FORMAT);
      },
    );
  }
}
