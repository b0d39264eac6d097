/**
 * @module bench/order-path/stages
 *
 * Where a signed order's CPU and allocation go, by stage of the pipeline (docs/architecture.md,
 * ① to ⑦), from the profiles of bench/order-path/threads. One table says which source files
 * belong to which stage; everything else follows from it:
 *
 *  - On the main thread a sample (a CPU tick, or an allocation) belongs to the stage of the
 *    innermost frame on its stack whose file the table names: `ledger.settleFill` called from
 *    `app/settlement.ts` is settlement, `ledger.admitOrder` called from `app/order-entry.ts` is
 *    risk. Files the table leaves out (the cores both sides share, node's internals, most
 *    libraries, uWS's native methods) take their caller's stage. A stack with no named frame
 *    at all is "event loop, promises, node internals"; V8's own "(garbage collector)" and
 *    "(program)" (native code with no JavaScript frame) are rows of their own.
 *  - A worker thread is one stage as a whole, told by the scripts it loaded (WORKER_STAGES).
 *  - CPU comes from the kernel's count per thread (unprofiled rounds); the main thread's profile
 *    only says how to split its share. Allocation comes from the profiled round.
 *
 * May import: ./threads (types).
 */
import type { CallFrame, CpuProfile, HeapNode, Profiles, Thread } from './threads.ts';

export const Stage = {
  gateway: 'gateway: HTTP adapter, parse, schema validation, rate limit',
  jwt: 'JWT (bearer token check)',
  handOff: 'signature task hand-off (main thread)',
  sequencer: 'sequencer + risk (R1), order registry',
  ring: 'ring + market thread hand-off (main thread)',
  settlement: 'settlement (R2)',
  journal: 'journal (append, flush, lmdb on main thread)',
  history: 'history projection (records built on main thread)',
  feeds: 'feeds relay (no subscribers)',
  reply: 'reply (order view, JSON, write)',
  gc: 'GC (main thread)',
  program: 'native, no JS frame (main thread)',
  loop: 'event loop, promises, node internals',
  market: 'market thread (matching)',
  projection: 'projection thread (history LMDB writes)',
  snapshot: 'snapshot thread (follows the journal)',
  pool: 'signature pool threads (digest + recovery)',
  loader: "tsx's loader threads (running from source only)",
  otherWorker: 'other worker thread',
  native: 'threads with no JS: libuv pool (lmdb commits, syncs), V8 helpers',
} as const;
export type Stage = (typeof Stage)[keyof typeof Stage];

/**
 * Main thread: a file (by a path fragment of its URL), optionally only some of its functions,
 * and its stage. The first row that matches a frame wins; order the specific before the general.
 */
const MAIN_STAGES: { file: string; functions?: readonly string[]; stage: Stage }[] = [
  // The HTTP adapter reads the request and writes the reply: `finish` (uws-serve) and all of uws-reply are the reply.
  { file: '/src/http/uws-serve.ts', functions: ['finish'], stage: Stage.reply },
  { file: '/src/http/uws-reply.ts', stage: Stage.reply },
  { file: '/src/http/order-view.ts', stage: Stage.reply },
  { file: '/src/auth/token.ts', stage: Stage.jwt },
  { file: '/src/auth/signature-pool.ts', stage: Stage.handOff },
  { file: '/src/auth/signature-tasks.ts', stage: Stage.handOff },
  { file: '/src/auth/signed-request.ts', stage: Stage.handOff },
  { file: '/node_modules/piscina/', stage: Stage.handOff },
  { file: '/src/http/', stage: Stage.gateway },
  { file: '/node_modules/ajv/', stage: Stage.gateway },
  { file: '/src/app/settlement.ts', stage: Stage.settlement },
  { file: '/src/app/exchange.ts', stage: Stage.sequencer },
  { file: '/src/app/order-entry.ts', stage: Stage.sequencer },
  { file: '/src/app/commands.ts', stage: Stage.sequencer },
  { file: '/src/app/account-limits.ts', stage: Stage.sequencer },
  { file: '/src/auth/nonces.ts', stage: Stage.sequencer },
  { file: '/src/sequencer/sequencer.ts', stage: Stage.sequencer },
  { file: '/src/ws/', stage: Stage.feeds },
  { file: '/src/transport/', stage: Stage.ring },
  { file: '/src/journal/', stage: Stage.journal },
  { file: '/node_modules/lmdb/', stage: Stage.journal },
  { file: '/src/history/', stage: Stage.history },
];

/**
 * Worker threads by the module that shows whose thread it is; the first row that matches wins.
 * From dist/ a worker runs `dist/<room>/<name>.js`; from source, its esbuild bundle
 * `node_modules/.cache/perp-bundles/<name>-<hash>.mjs` (transport/source-bundle): `pattern`
 * matches both.
 */
const WORKER_STAGES: { pattern: RegExp; stage: Stage }[] = [
  { pattern: /\/signature-worker[.-]/, stage: Stage.pool },
  { pattern: /\/market-worker[.-]/, stage: Stage.market },
  { pattern: /\/projection-worker[.-]/, stage: Stage.projection },
  { pattern: /\/snapshot-worker[.-]/, stage: Stage.snapshot },
  // A thread of tsx's module.register() hooks: one for the main thread, one per worker that registers them.
  { pattern: /\/node_modules\/tsx\//, stage: Stage.loader },
];

/** The stage a frame names on the main thread, or null when it takes its caller's. */
function frameStage(frame: CallFrame): Stage | null {
  if (frame.url === '') {
    if (frame.functionName === '(garbage collector)') return Stage.gc;
    if (frame.functionName === '(program)') return Stage.program;
    return null;
  }
  for (const row of MAIN_STAGES) if (frame.url.includes(row.file) && (row.functions === undefined || row.functions.includes(frame.functionName))) return row.stage;
  return null;
}

/** By stage: µs of CPU and bytes allocated over the window. */
export type Breakdown = Map<Stage, { micros: number; bytes: number }>;

function add(into: Breakdown, stage: Stage, micros: number, bytes: number): void {
  const row = into.get(stage) ?? { micros: 0, bytes: 0 };
  row.micros += micros;
  row.bytes += bytes;
  into.set(stage, row);
}

/** A worker's stage, from the scripts it loaded. */
export function workerStage(thread: Thread): Stage {
  for (const row of WORKER_STAGES) if (thread.scripts.some((url) => row.pattern.test(url))) return row.stage;
  return Stage.otherWorker;
}

/**
 * The main thread's CPU as µs by stage: each profile sample's time (its `timeDelta`, wall time)
 * to its stack's stage, as a share of the busy samples, times `cpuMicros` (the kernel's count).
 * "(idle)" samples are the event loop waiting: not counted.
 */
function mainCpu(profile: CpuProfile, cpuMicros: number): Map<Stage, number> {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOf = new Map<number, Stage | 'idle'>();
  const resolve = (id: number): Stage | 'idle' => {
    const known = stageOf.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id)!.callFrame;
    let stage: Stage | 'idle';
    if (frame.functionName === '(idle)') stage = 'idle';
    else {
      const own = frameStage(frame);
      const up = parent.get(id);
      stage = own ?? (up === undefined ? Stage.loop : resolve(up));
    }
    stageOf.set(id, stage);
    return stage;
  };
  const wall = new Map<Stage, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const stage = resolve(id);
    if (stage === 'idle') return;
    // A sample's delta is the time since the previous one; the first has none to speak of.
    const micros = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
    wall.set(stage, (wall.get(stage) ?? 0) + micros);
    busy += micros;
  });
  const out = new Map<Stage, number>();
  for (const [stage, micros] of wall) out.set(stage, busy === 0 ? 0 : (micros / busy) * cpuMicros);
  return out;
}

/** The main thread's sampled allocations as bytes by stage (the same innermost-named-frame rule). */
function mainHeap(head: HeapNode): Map<Stage, number> {
  const out = new Map<Stage, number>();
  const walk = (node: HeapNode, inherited: Stage): void => {
    const stage = frameStage(node.callFrame) ?? inherited;
    if (node.selfSize > 0) out.set(stage, (out.get(stage) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c, stage);
  };
  walk(head, Stage.loop);
  return out;
}

function heapTotal(node: HeapNode): number {
  return node.children.reduce((sum, c) => sum + heapTotal(c), node.selfSize);
}

/**
 * By stage: `cpu` (µs by thread tid, `native` for the threads with no JS) from unprofiled
 * rounds, the main thread split as its profile says; allocation from the profiled round.
 */
export function breakdown(threads: readonly Thread[], cpu: { byTid: Map<number, number>; native: number }, profiles: Profiles): Breakdown {
  const out: Breakdown = new Map();
  for (const thread of threads) {
    const micros = cpu.byTid.get(thread.tid) ?? 0;
    const heap = profiles.heaps.get(thread.tid);
    if (thread.title === 'main') {
      for (const [stage, share] of mainCpu(profiles.mainCpu, micros)) add(out, stage, share, 0);
      if (heap !== undefined) for (const [stage, bytes] of mainHeap(heap)) add(out, stage, 0, bytes);
    } else add(out, workerStage(thread), micros, heap === undefined ? 0 : heapTotal(heap));
  }
  add(out, Stage.native, cpu.native, 0);
  return out;
}

/** The stages in the order of the pipeline, for the table. */
export const STAGE_ORDER: readonly Stage[] = Object.values(Stage);

/** `file:line function` of a frame, the file relative to the repository. */
function frameName(frame: CallFrame & { lineNumber?: number }): string {
  const file = frame.url.replace(/^.*\/(src|node_modules)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${file}${frame.lineNumber === undefined ? '' : `:${frame.lineNumber + 1}`}`;
}

/** The main thread's `count` costliest functions by self time (share of busy samples) and by self allocation (bytes), with their stage. */
export function topFunctions(profiles: Profiles, mainTid: number, count: number): { cpu: [string, number][]; bytes: [string, number][] } {
  const profile = profiles.mainCpu;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const micros = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
    self.set(frameName(frame), (self.get(frameName(frame)) ?? 0) + micros);
    busy += micros;
  });
  const bytes = new Map<string, number>();
  const walk = (n: HeapNode): void => {
    if (n.selfSize > 0) bytes.set(frameName(n.callFrame), (bytes.get(frameName(n.callFrame)) ?? 0) + n.selfSize);
    n.children.forEach(walk);
  };
  const heap = profiles.heaps.get(mainTid);
  if (heap !== undefined) walk(heap);
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, count);
  return { cpu: top(self).map(([name, micros]) => [name, micros / busy]), bytes: top(bytes) };
}
