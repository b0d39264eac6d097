/**
 * @module journal
 *
 * The exchange's memory: one append-only, checksummed, hash-chained sequence of records (every
 * accepted command and every book event), and the snapshots taken beside it. Everything else
 * — the exchange's state, history, a replica — is derived from it.
 *
 * Owns: the record format (record.ts, one global seq from 1 without gaps), group commit and
 * acknowledge-on-flush (journal.ts: `append` returns a seq at once, `durable(seq)` resolves when
 * it is on disk), torn-tail repair vs refusal of corruption at open, shipping each flushed
 * block to a replication sink and what its refusal does (block-sink.ts), storage behind one
 * interface (storage.ts) — LMDB blocks in production (lmdb-storage.ts), a simulated disk with
 * power cuts for tests (simulated-storage.ts) — snapshots, one file each beside the journal
 * (snapshots.ts: write-once blobs need no B-tree), tied to the journal they were taken of
 * (snapshot-tie.ts: another journal's are skipped), verification and the
 * operator tool (verify.ts, cli.ts).
 * May import: lmdb, node:fs, node:path, node:url, transport/layout, app/commands. The last two
 * are the CLI's (cli.ts): it names the transport's record kinds to print them.
 * Nothing here knows what a record means.
 *
 * Invariants: seqs are dense; `flushedSeq ≤ committedSeq ≤ lastSeq`; a seq reported durable
 * survives a power cut; a damaged record stops the start unless it is a torn tail that cannot
 * have been acknowledged (never in LMDB, whose transactions are atomic); a truncated LMDB file
 * is refused by name before it is mapped (lmdb-file.ts).
 * Limits: one writer process per data directory; a payload is at most 1 MiB.
 */
export {};
