/**
 * @module journal/lmdb-file
 *
 * Checks an LMDB data file (`DIR/data.mdb`) against its own header before lmdb maps it. LMDB
 * maps the whole file and trusts its meta pages: a file shorter than the pages they name dies
 * with SIGBUS at the first read past the end, with no message. Reading the two meta pages
 * first turns a truncated file into a sentence an operator can act on.
 *
 * The layout read here (liblmdb's `MDB_meta`, 64-bit, little-endian): pages 0 and 1 are meta
 * pages; after a page header (24 bytes in data format 2, the one lmdb-js 3 writes; 16 in format
 * 1) come `mm_magic` u32 = 0xBEEFC0DE, `mm_version` u32, `mm_address` u64, `mm_mapsize` u64,
 * `mm_dbs[0]` (whose first u32 is the page size), `mm_dbs[1]`, then at +120 `mm_last_pg` u64
 * and at +128 `mm_txnid` u64. The meta with the higher txnid is the current one; every page up
 * to `mm_last_pg` belongs to it, and lmdb extends the file page by page as it writes them, so a
 * whole file is at least `(mm_last_pg + 1) × pagesize` bytes (measured: exactly that, after
 * every commit).
 *
 * With `{ pages: true }` (a start, which is about to open the file for writing) it also walks
 * the current meta's trees — the main database, each named database in it, every branch page
 * and the header of every leaf — and checks that each page is the one its parent names (its
 * `mp_pgno`), lies within the file's pages, has the kind its depth says, and was written by the
 * meta's transaction or an earlier one (`mp_txnid`, bytes 8–15 of a format-2 page header). A
 * committed tree never points at a page a later transaction wrote; a file copied (`cp`) while an
 * exchange wrote it does: its header comes from the start of the copy, pages from later, some
 * of them already reused. Opened for writing, such a file made lmdb fail with
 * `MDB_PROBLEM: … mdb_page_touch no parent` or die with SIGSEGV, with no word on which file.
 * Pages written after the meta but not reachable from it (a commit cut short by kill -9) are
 * never visited, so they do not count.
 *
 * Invariants: without `pages`, reads at most two pages; never writes; never maps the file.
 * May import: node:fs, node:path.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MDB_MAGIC = 0xbeefc0de;
/** Offsets within the meta (after the page header). */
const kMetaMagic = 0;
const kMetaPageSize = 24;
const kMetaLastPage = 120;
const kMetaTxnId = 128;
const kMetaBytes = 136;
/** Page header sizes by data format: 24 bytes (format 2, lmdb-js 3), 16 (format 1). */
const PAGE_HEADERS = [24, 16] as const;

export type LmdbFileState =
  | { state: 'absent' }
  | { state: 'empty' }
  | { state: 'whole'; bytes: number }
  | { state: 'damaged'; bytes: number; problem: string };

interface Meta {
  pageSize: number;
  lastPage: number;
  txnId: number;
  /** The page header size of this file's data format (24: format 2, whose headers carry the txnid). */
  header: number;
  /** The main database's depth and root page (P_INVALID when empty). */
  mainDepth: number;
  mainRoot: number;
}

/** Offsets of the main database's `MDB_db` in the meta (after the free database's). */
const kMetaMainDb = 72;
/** Within an `MDB_db`: `md_depth` u16, `md_root` u64. */
const kDbDepth = 6;
const kDbRoot = 40;
const kDbBytes = 48;
/** Page header fields (format 2): `mp_pgno` u64, `mp_txnid` u64, `mp_flags` u16, `mp_lower` u16 (bytes of node offsets after the header). */
const kPageTxnId = 8;
const kPageFlags = 18;
const kPageLower = 20;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_LEAF2 = 0x20;
/** A leaf node's data is a named database's `MDB_db`. */
const F_SUBDATA = 0x02;
/** A node: `mn_lo` u16, `mn_hi` u16, `mn_flags` u16, `mn_ksize` u16, then the key and the data. */
const kNodeFlags = 4;
const kNodeKeySize = 6;
const kNodeBytes = 8;
const P_INVALID = 2 ** 64 - 1;

function readMeta(page: Uint8Array): Meta | undefined {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  for (const header of PAGE_HEADERS) {
    if (page.length < header + kMetaBytes || view.getUint32(header + kMetaMagic, true) !== MDB_MAGIC) continue;
    return {
      pageSize: view.getUint32(header + kMetaPageSize, true),
      lastPage: Number(view.getBigUint64(header + kMetaLastPage, true)),
      txnId: Number(view.getBigUint64(header + kMetaTxnId, true)),
      header,
      mainDepth: view.getUint16(header + kMetaMainDb + kDbDepth, true),
      mainRoot: Number(view.getBigUint64(header + kMetaMainDb + kDbRoot, true)),
    };
  }
  return undefined;
}

/**
 * The first page of the current meta's trees that is not what a committed tree holds, as a
 * sentence, or null (see the module header). Format 2 only (format 1 pages carry no txnid).
 */
function inconsistentPage(fd: number, meta: Meta): string | null {
  if (meta.header !== 24) return null;
  const page = new Uint8Array(meta.pageSize);
  const view = new DataView(page.buffer);
  // Trees still to walk: [root, depth]; the main database first, then each named one it holds.
  const trees: Array<[number, number]> = [];
  if (meta.mainRoot !== P_INVALID) trees.push([meta.mainRoot, meta.mainDepth]);
  let main = true;
  while (trees.length > 0) {
    const [root, depth] = trees.shift()!;
    // Pages to check at each level: [pgno, level] (level 1 = leaves).
    const pending: Array<[number, number]> = [[root, depth]];
    while (pending.length > 0) {
      const [pgno, level] = pending.pop()!;
      if (!Number.isSafeInteger(pgno) || pgno < 2 || pgno > meta.lastPage) return `a page it points to (${pgno}) lies outside its ${meta.lastPage + 1} pages`;
      const leafOnly = level === 1 && !main;
      readSync(fd, page, 0, leafOnly ? 24 : meta.pageSize, pgno * meta.pageSize);
      const stored = Number(view.getBigUint64(0, true));
      const txn = Number(view.getBigUint64(kPageTxnId, true));
      const flags = view.getUint16(kPageFlags, true);
      if (stored !== pgno) return `page ${pgno} holds page ${stored}`;
      if (txn > meta.txnId) return `page ${pgno} was written by transaction ${txn}, after the transaction ${meta.txnId} its header names as the last`;
      const kind = level > 1 ? P_BRANCH : P_LEAF;
      if ((flags & kind) === 0) return `page ${pgno} is not the ${level > 1 ? 'branch' : 'leaf'} page its tree's depth says (flags 0x${flags.toString(16)})`;
      if (leafOnly || (flags & P_LEAF2) !== 0) continue;
      // Format 2 counts `mp_lower` and the node offsets from the end of the page header.
      const count = view.getUint16(kPageLower, true) >> 1;
      if (meta.header + 2 * count > meta.pageSize) return `page ${pgno} has more nodes than fit in it`;
      for (let i = 0; i < count; i++) {
        const node = meta.header + view.getUint16(meta.header + 2 * i, true);
        if (node + kNodeBytes > meta.pageSize) return `page ${pgno} has a node outside it`;
        if (level > 1) {
          // A branch node's child: mn_lo | mn_hi << 16 | mn_flags << 32.
          const child = view.getUint16(node, true) + view.getUint16(node + 2, true) * 2 ** 16 + view.getUint16(node + kNodeFlags, true) * 2 ** 32;
          pending.push([child, level - 1]);
        } else if ((view.getUint16(node + kNodeFlags, true) & F_SUBDATA) !== 0) {
          const db = node + kNodeBytes + view.getUint16(node + kNodeKeySize, true);
          if (db + kDbBytes > meta.pageSize) return `page ${pgno} has a node outside it`;
          const subRoot = Number(view.getBigUint64(db + kDbRoot, true));
          if (subRoot !== P_INVALID) trees.push([subRoot, view.getUint16(db + kDbDepth, true)]);
        }
      }
    }
    main = false;
  }
  return null;
}

/** The path of the data file of the LMDB environment in `dir`. */
export function lmdbDataFile(dir: string): string {
  return join(dir, 'data.mdb');
}

/**
 * Whether the LMDB environment in `dir` is absent, empty (0 bytes), whole, or damaged (and how).
 * `pages`: walk its trees too (see the module header) — only where no other process writes it.
 */
export function checkLmdbFile(dir: string, { pages = false }: { pages?: boolean } = {}): LmdbFileState {
  const path = lmdbDataFile(dir);
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch {
    return { state: 'absent' };
  }
  if (bytes === 0) return { state: 'empty' };
  const fd = openSync(path, 'r');
  try {
    const first = new Uint8Array(Math.min(bytes, 4096));
    readSync(fd, first, 0, first.length, 0);
    const meta0 = readMeta(first);
    if (meta0 === undefined) return { state: 'damaged', bytes, problem: 'its first page is not an LMDB meta page' };
    const pageSize = meta0.pageSize;
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return { state: 'damaged', bytes, problem: `its header names an impossible page size (${pageSize})` };
    if (bytes < 2 * pageSize) return { state: 'damaged', bytes, problem: `it is shorter than its two header pages (${2 * pageSize} bytes)` };
    const second = new Uint8Array(Math.min(pageSize, 4096));
    readSync(fd, second, 0, second.length, pageSize);
    const meta1 = readMeta(second);
    const current = meta1 !== undefined && meta1.txnId > meta0.txnId ? meta1 : meta0;
    const needed = (current.lastPage + 1) * pageSize;
    if (bytes < needed) {
      return { state: 'damaged', bytes, problem: `it is ${bytes} bytes, but its header says its data runs to ${needed} bytes (page ${current.lastPage} of ${pageSize} bytes): the file was truncated` };
    }
    const inconsistent = pages ? inconsistentPage(fd, current) : null;
    if (inconsistent !== null) {
      return {
        state: 'damaged',
        bytes,
        problem: `its pages disagree with its header: ${inconsistent}. A committed file never looks like this; a copy taken while an exchange was writing it does (copy a running exchange with \`npm run journal -- copy\`)`,
      };
    }
    return { state: 'whole', bytes };
  } finally {
    closeSync(fd);
  }
}
