/**
 * @module bench/order-path/threads
 *
 * Every JavaScript thread of this process, reached through the inspector with no change to the
 * exchange's code: the main thread with its own `Session`, each worker thread (market threads,
 * the projection and snapshot threads, the signature pool's workers, tsx's loader threads when
 * running from source) through the main session's `NodeWorker` domain. For each: its kernel
 * thread id (read inside the thread from /proc/thread-self), the scripts it loaded (which say
 * whose thread it is), and on demand over one window:
 *  - the CPU the kernel charged each thread (`/proc/self/task/<tid>/stat`), cheap enough for an
 *    unprofiled round; threads with no JavaScript (V8's GC and compiler helpers, libuv's pool,
 *    where lmdb commits and syncs) are summed as one;
 *  - a CPU profile of the main thread (`Profiler`; its samples are wall time, so it only splits
 *    the thread's CPU, it does not measure it). Workers are not CPU-profiled: each is one stage,
 *    and a sampler per thread would cost more than the threads being measured;
 *  - a sampling heap profile of every thread that counts what was allocated whether or not it
 *    was collected since (`HeapProfiler.startSampling`, `includeObjectsCollectedBy*GC`).
 * May import: node:inspector, node:fs.
 */
import { Session } from 'node:inspector/promises';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The parts of the inspector's CPU profile this bench reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}
/** The parts of the inspector's sampling heap profile this bench reads. */
export interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}
export interface CallFrame {
  functionName: string;
  url: string;
}

export interface Thread {
  /** `main`, or the inspector's worker title. */
  title: string;
  tid: number;
  /** The URLs of the scripts it had loaded when attached. */
  scripts: string[];
  post<T>(method: string, params?: object): Promise<T>;
}

/** CPU the kernel charged each thread of this process so far (user + system), µs by tid. */
export function threadCpu(): Map<number, number> {
  const tick = 1e6 / 100; // USER_HZ: 100 on Linux
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      // Fields after the command name's ")": utime and stime are fields 14 and 15 of the line.
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * tick);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** CPU of each thread between two `threadCpu()` readings, µs: by JS thread tid, and the rest summed. */
export function cpuBetween(threads: readonly Thread[], before: Map<number, number>, after: Map<number, number>): { byTid: Map<number, number>; native: number } {
  const used = (tid: number) => (after.get(tid) ?? 0) - (before.get(tid) ?? 0);
  const js = new Set(threads.map((t) => t.tid));
  const byTid = new Map(threads.map((t) => [t.tid, used(t.tid)]));
  let native = 0;
  for (const tid of after.keys()) if (!js.has(tid)) native += Math.max(0, used(tid));
  return { byTid, native };
}

export interface Profiles {
  mainCpu: CpuProfile;
  /** Every thread's CPU profile by tid (the main thread's too); a worker's shows where its own stage spends. */
  cpu: Map<number, CpuProfile>;
  /** Sampled allocations by thread tid. */
  heaps: Map<number, HeapNode>;
}

export interface Inspector {
  threads: Thread[];
  /** Profiles over `run`: every thread's CPU and allocations. */
  profile<T>(run: () => Promise<T>, options: { cpuIntervalMicros: number; heapIntervalBytes: number }): Promise<{ result: T; profiles: Profiles }>;
  close(): void;
}

/** Attaches to every JavaScript thread running now. */
export async function attachThreads(): Promise<Inspector> {
  const session = new Session();
  session.connect();
  const workers: { sessionId: string; title: string; scripts: string[] }[] = [];
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  session.on('inspectorNotification', (m: { method: string; params?: unknown }) => {
    if (m.method === 'NodeWorker.attachedToWorker') {
      const p = m.params as { sessionId: string; workerInfo: { title: string } };
      workers.push({ sessionId: p.sessionId, title: p.workerInfo.title, scripts: [] });
    } else if (m.method === 'NodeWorker.receivedMessageFromWorker') {
      const { sessionId, message } = m.params as { sessionId: string; message: string };
      const reply = JSON.parse(message) as { id?: number; method?: string; params?: { url: string }; result?: unknown; error?: { message: string } };
      if (reply.method === 'Debugger.scriptParsed') workers.find((w) => w.sessionId === sessionId)?.scripts.push(reply.params!.url);
      const w = reply.id === undefined ? undefined : waiting.get(reply.id);
      if (w === undefined) return;
      waiting.delete(reply.id!);
      if (reply.error !== undefined) w.reject(new Error(reply.error.message));
      else w.resolve(reply.result);
    }
  });
  await session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  // The attach notifications of the running workers follow the enable's answer.
  await new Promise((resolve) => setTimeout(resolve, 200));
  if (Number(readlinkSync('/proc/thread-self').split('/').pop()) !== process.pid) throw new Error('attachThreads must run on the main thread');
  const threads: Thread[] = [{ title: 'main', tid: process.pid, scripts: [], post: (method, params) => session.post(method as never, params as never) as Promise<never> }];
  for (const w of workers) {
    const post = <R>(method: string, params: object = {}): Promise<R> =>
      new Promise<R>((resolve, reject) => {
        const id = ++nextId;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        void session.post('NodeWorker.sendMessageToWorker', { sessionId: w.sessionId, message: JSON.stringify({ id, method, params }) });
      });
    const self = await post<{ result: { value: string } }>('Runtime.evaluate', { expression: "require('fs').readlinkSync('/proc/thread-self')", includeCommandLineAPI: true });
    // Enabling the debugger replays a scriptParsed for every script loaded: whose thread this is.
    await post('Debugger.enable');
    await post('Debugger.disable');
    threads.push({ title: w.title, tid: Number(self.result.value.split('/').pop()), scripts: w.scripts, post });
  }
  return {
    threads,
    async profile(run, options) {
      for (const t of threads) {
        await t.post('Profiler.enable');
        await t.post('Profiler.setSamplingInterval', { interval: options.cpuIntervalMicros });
        await t.post('HeapProfiler.enable');
        await t.post('HeapProfiler.startSampling', { samplingInterval: options.heapIntervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      }
      for (const t of threads) await t.post('Profiler.start');
      const result = await run();
      const cpu = new Map<number, CpuProfile>();
      const heaps = new Map<number, HeapNode>();
      for (const t of threads) {
        const { profile } = await t.post<{ profile: CpuProfile }>('Profiler.stop');
        cpu.set(t.tid, profile);
        await t.post('Profiler.disable');
      }
      for (const t of threads) {
        const { profile } = await t.post<{ profile: { head: HeapNode } }>('HeapProfiler.stopSampling');
        heaps.set(t.tid, profile.head);
        await t.post('HeapProfiler.disable');
      }
      return { result, profiles: { mainCpu: cpu.get(process.pid)!, cpu, heaps } };
    },
    close() {
      void session.post('NodeWorker.disable').catch(() => {});
      session.disconnect();
    },
  };
}
