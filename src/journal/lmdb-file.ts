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
 * Invariants: reads at most two pages; never writes; never maps the file.
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
}

function readMeta(page: Uint8Array): Meta | undefined {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  for (const header of PAGE_HEADERS) {
    if (page.length < header + kMetaBytes || view.getUint32(header + kMetaMagic, true) !== MDB_MAGIC) continue;
    return {
      pageSize: view.getUint32(header + kMetaPageSize, true),
      lastPage: Number(view.getBigUint64(header + kMetaLastPage, true)),
      txnId: Number(view.getBigUint64(header + kMetaTxnId, true)),
    };
  }
  return undefined;
}

/** The path of the data file of the LMDB environment in `dir`. */
export function lmdbDataFile(dir: string): string {
  return join(dir, 'data.mdb');
}

/** Whether the LMDB environment in `dir` is absent, empty (0 bytes), whole, or damaged (and how). */
export function checkLmdbFile(dir: string): LmdbFileState {
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
    return { state: 'whole', bytes };
  } finally {
    closeSync(fd);
  }
}
