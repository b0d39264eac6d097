/**
 * Ends one worker thread of a running exchange process from outside, the way a thread dies on
 * its own (`process.exit` inside a worker ends that thread only), with no hook in the
 * exchange's code: through Node's inspector. The process is started with the inspector on a
 * free loopback port (`INSPECT`, as NODE_OPTIONS); the helper attaches to its worker threads
 * (the inspector's NodeWorker domain), finds the one whose `workerData` matches, and runs
 * `process.exit(code)` in it. The inspector reaches a thread even while it blocks in
 * `Atomics.wait` (a market thread's idle loop): its messages arrive as V8 interrupts.
 * A thread cannot be ended from outside by a signal: Linux delivers a fatal signal to the
 * whole process, whichever thread id it names.
 * `inMainThread` runs an expression on the process's main thread the same way: a fault a test
 * injects there (what a thread is handed, say).
 */
import WebSocket from 'ws';

/** NODE_OPTIONS for a process whose threads a test may end: the inspector on a free loopback port. */
export const INSPECT = { NODE_OPTIONS: '--inspect=127.0.0.1:0' };

/** The inspector's WebSocket address, from the line Node writes to stderr at start. */
export function inspectorUrl(stderr: string): string {
  const url = stderr.match(/Debugger listening on (ws:\/\/\S+)/)?.[1];
  if (url === undefined) throw new Error(`no inspector address in the server's stderr:\n${stderr}`);
  return url;
}

/** An open inspector session: `call` sends a method and resolves with its reply; `replies` also takes a worker's. */
async function connect(url: string) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let nextId = 1;
  const replies = new Map<number, (result: any) => void>();
  const call = (method: string, params: object) =>
    new Promise<any>((resolve) => {
      const id = nextId++;
      replies.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { socket, replies, call, nextId: () => nextId++ };
}

/**
 * Tells the first worker thread for which `matches` — a JavaScript expression over `data`, the
 * thread's `workerData` (undefined for some) — is true, to run `process.exit(code)`; `ended`
 * resolves once it has, saying how it learned it. A thread runs it at its next JavaScript step: a market thread within
 * its 250 ms idle wait, a signature thread (piscina, blocked in `Atomics.wait` until a task comes)
 * when its next task arrives — the thread then dies holding that task. Rejects if no thread
 * matches (the test would prove nothing).
 */
/** How `ended` learned of the end: the inspector detached from the thread (it ended), or the inspector's socket closed (it may not have). */
export type ThreadEnd = 'detached' | 'inspector closed';

export async function endThread(url: string, matches: string, code = 1): Promise<{ ended: Promise<ThreadEnd> }> {
  const { socket, replies, call, nextId } = await connect(url);
  let told = false;
  try {
    const workers: string[] = [];
    const detached = new Map<string, () => void>();
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw));
      if (message.method === 'NodeWorker.attachedToWorker') workers.push(message.params.sessionId);
      else if (message.method === 'NodeWorker.detachedFromWorker') detached.get(message.params.sessionId)?.();
      else if (message.method === 'NodeWorker.receivedMessageFromWorker') {
        const inner = JSON.parse(message.params.message);
        replies.get(inner.id)?.(inner);
      } else if (message.id !== undefined) replies.get(message.id)?.(message);
    });
    /** Runs `expression` in the worker of `sessionId`; resolves with its value (the reply is awaited only if `answer`). */
    const inWorker = (sessionId: string, expression: string, answer = true) => {
      const id = nextId();
      const reply = new Promise<any>((resolve) => replies.set(id, resolve));
      socket.send(JSON.stringify({ id: nextId(), method: 'NodeWorker.sendMessageToWorker', params: { sessionId, message: JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, returnByValue: true } }) } }));
      return answer ? reply.then((r) => r.result?.result?.value) : Promise.resolve(undefined);
    };
    // Every running worker is reported attached right after this call returns.
    await call('NodeWorker.enable', { waitForDebuggerOnStart: false });
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const sessionId of workers) {
      const found = await inWorker(sessionId, `(data => Boolean(${matches}))(process.getBuiltinModule('node:worker_threads').workerData)`);
      if (found !== true) continue;
      // The thread ends before it can answer: its end is the inspector detaching from it. The
      // session stays open until then, or the message could be dropped.
      // Or the session closing: no detach comes after it, and a promise nothing can settle let
      // the test's event loop run empty mid-test (node:test then fails the whole file with
      // "Promise resolution is still pending", seen once in a loaded CI run). What the thread's
      // end did is for the caller to check (its log line, its answers).
      const ended = new Promise<ThreadEnd>((resolve) => {
        detached.set(sessionId, () => resolve('detached'));
        socket.once('close', () => resolve('inspector closed'));
      }).finally(() => socket.close());
      await inWorker(sessionId, `process.exit(${code})`, false);
      told = true;
      return { ended };
    }
    throw new Error(`no worker thread of ${workers.length} matches ${matches}`);
  } finally {
    if (!told) socket.close();
  }
}

/** Runs `expression` on the process's main thread and resolves with its value (an exception rejects). */
export async function inMainThread(url: string, expression: string): Promise<unknown> {
  const { socket, replies, call } = await connect(url);
  try {
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw));
      if (message.id !== undefined) replies.get(message.id)?.(message);
    });
    const reply = await call('Runtime.evaluate', { expression, returnByValue: true });
    if (reply.result?.exceptionDetails !== undefined) throw new Error(`${expression} threw: ${JSON.stringify(reply.result.exceptionDetails)}`);
    return reply.result?.result?.value;
  } finally {
    socket.close();
  }
}
