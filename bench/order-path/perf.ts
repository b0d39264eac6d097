/**
 * @module bench/order-path/perf
 *
 * What every thread of this process spends its CPU on, by kind of work, from Linux's `perf`
 * (Debian's `linux-perf`): `ORDER_PATH_PERF=1 npm run bench:order-path`. The inspector's CPU
 * profile sees JavaScript frames only, and its samples are wall time; `perf` samples each
 * thread's CPU time with the whole stack — V8's own code (the garbage collector, the compiler,
 * inline caches), libuv, LMDB, the kernel — so it says what the rows "threads with no JS" and
 * "GC" are made of, and how much of a JavaScript thread is its JavaScript at all.
 *
 * A sample's kind is read from its stack: GC, compilation or LMDB if any frame is theirs
 * (`ENCLOSING`: a collection's work is GC wherever it runs, LMDB's includes the kernel's writes it
 * asks for), else the work of the frame nearest the leaf that names one (`NEAREST`). Threads are named by their JS stage where they have one (bench/order-path/threads).
 * May import: node:child_process, node:fs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';

/**
 * Kinds of work whose every frame counts: a sample anywhere under a collection, a compilation or
 * an LMDB call is that work's, whatever it was doing at the leaf (copying, a page fault, a write).
 */
const ENCLOSING: readonly [kind: string, frame: RegExp][] = [
  ['GC: scavenge', /Scaveng|MinorMC|MinorMark|SemiSpace/],
  ['GC: mark-compact, sweep', /MarkCompact|Marking|Sweep|Evacuat|ConcurrentMark|MemoryReducer/],
  ['JIT compile, deopt', /Compil|Turbofan|Maglev|Deoptimiz|OptimizingCompileDispatcher|BytecodeGenerator|Parser::/],
  ['LMDB (incl. its disk writes)', /mdb_|lmdb|WriteWorker|LmdbStore|EnvWrap/],
];
/** The rest by the frame nearest the leaf that names its work (a `memmove` is its caller's). */
const NEAREST: readonly [kind: string, frame: RegExp][] = [
  ['kernel: futex, scheduling', /^(futex|schedule|__schedule|finish_task_switch|try_to_wake_up|_raw_spin_unlock_irq)/],
  ['kernel: loopback TCP', /^(tcp_|ip_|__dev_queue|net_rx|sock_|__sys_send|__sys_recv|skb_)/],
  ['kernel: epoll, eventfd, other syscalls', /^(do_epoll|ep_|eventfd|do_syscall_64|entry_SYSCALL|syscall_exit|exit_to_user_mode)/],
  ['JSON', /Json/],
  ['promises, microtasks', /Builtins_.*(Promise|Microtask|Await)|PromiseReaction/],
  ['malloc, free (C heap)', /^(malloc|free|cfree|_int_malloc|_int_free|malloc_consolidate|unlink_chunk|sysmalloc)/],
  ['uWebSockets.js', /uWS|^us_|ofats/],
  ['inline caches, property lookups', /IC_|LoadIC|StoreIC|KeyedLoad|KeyedStore|LookupIterator|CloneObject|MigrateToMap|GetProperty|SetProperty|HasProperty/],
  ['V8 runtime and builtins', /v8::|Builtins_|Runtime_|node::/],
  ['JavaScript, WebAssembly (JIT code)', /^\[unknown\]$/],
];
const KINDS = [...ENCLOSING, ...NEAREST];
const OTHER = 'other';

export interface PerfRecording {
  /** Stops recording and returns samples by thread id and kind (one sample ≈ 1 ms of CPU at `FREQUENCY`). */
  stop(): Promise<Map<number, Map<string, number>>>;
}

/** Samples per second per thread. */
const FREQUENCY = 999;

/** Whether `perf` can record this process (installed, and allowed by `perf_event_paranoid`). */
export function perfAvailable(): boolean {
  return spawnSync('perf', ['--version']).status === 0;
}

/** Starts `perf record` on this process, every thread, with call stacks. */
export function recordPerf(file: string): PerfRecording {
  rmSync(file, { force: true });
  const child: ChildProcess = spawn('perf', ['record', '-F', String(FREQUENCY), '-g', '-p', String(process.pid), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      // perf writes its file on SIGINT, as after Ctrl-C.
      child.kill('SIGINT');
      await exited;
      if (!existsSync(file)) throw new Error(`perf record wrote nothing: ${stderr.trim()}`);
      const script = spawnSync('perf', ['script', '-i', file, '-F', 'tid,ip,sym'], { maxBuffer: 1 << 30, encoding: 'utf8' });
      if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`);
      if (process.env.ORDER_PATH_PERF_KEEP === undefined) rmSync(file, { force: true });
      return kindsByThread(script.stdout);
    },
  };
}

function nearest(frames: readonly string[]): string {
  for (const f of frames) for (const [kind, frame] of NEAREST) if (frame.test(f)) return kind;
  return OTHER;
}

/** `perf script -F tid,ip,sym` output: a line with the tid, then one frame per tab-indented line (leaf first), a blank line between samples. */
export function kindsByThread(text: string): Map<number, Map<string, number>> {
  const out = new Map<number, Map<string, number>>();
  let tid = -1;
  let frames: string[] = [];
  const flush = () => {
    if (tid < 0) return;
    const kind = ENCLOSING.find(([, frame]) => frames.some((f) => frame.test(f)))?.[0] ?? nearest(frames);
    let kinds = out.get(tid);
    if (kinds === undefined) out.set(tid, (kinds = new Map()));
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    tid = -1;
    frames = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') flush();
    else if (line.startsWith('\t')) {
      // "<address> <symbol>": the symbol may hold spaces (C++ signatures).
      const at = line.trim().indexOf(' ');
      frames.push(at < 0 ? '[unknown]' : line.trim().slice(at + 1));
    } else tid = Number(line.trim().split(/\s+/)[0]);
  }
  flush();
  return out;
}

/** Every kind in the order `KINDS` lists them, then `other`. */
export const PERF_KINDS: readonly string[] = [...KINDS.map(([kind]) => kind), OTHER];
