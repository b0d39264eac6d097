/**
 * @module bench/feeds/bare-pubsub
 *
 * The baseline of bench/feeds.bench.ts, run as a CHILD process so its CPU is its own (the
 * exchange idles in the bench's process meanwhile): a bare uWebSockets.js WebSocket server (the
 * package the exchange uses, no adapter) whose every connection is subscribed to one topic on
 * open. Asked over IPC, it publishes given messages at a given rate of passes for a while and
 * reports its CPU. A message a client sends comes back to it published on a topic of its own (the latency
 * probe's round trip), queued behind the fan-out like any published message.
 * Limits as the exchange's feed endpoint sets them (src/ws/feeds.ts), no compression.
 * May import: uWebSockets.js (src/http/uws-native loads it), node:, src/ws/feeds (its limits).
 */
import type * as Uws from '@btc-vision/uwebsockets.js';
import { uwsNative } from '../../src/http/uws-native.ts';
import { DEFAULT_FEED_LIMITS } from '../../src/ws/feeds.ts';


export const BARE_TOPIC = 'feed';
const PROBE_TOPIC = 'probe';

export type BareJob =
  /** Listens on a free loopback port; the reply has it. */
  | { op: 'listen' }
  /** Publishes `passesPerSecond` times a second for `seconds` (see `publishPaced`); the reply has what was published, the subscribers and the CPU it took. */
  | { op: 'publish'; passesPerSecond: number; messages: { text: string; perPass: number }[]; seconds: number };

export type BareReply = { ok: true; port?: number; published?: number; subscribers?: number; cpuSeconds?: number } | { ok: false; error: string };

interface BarePubSub {
  port: number;
  publish(text: string): void;
  subscribers(): number;
  close(): void;
}

function startBarePubSub(): Promise<BarePubSub> {
  // `close` (every connection) is in the binary, not in its typings (as src/http/uws.ts says too).
  const { uws } = uwsNative();
  const app = uws.App() as Uws.TemplatedApp & { close(): void };
  app.ws('/ws', {
    compression: uws.DISABLED,
    maxPayloadLength: 16 * 1024,
    idleTimeout: 60,
    maxBackpressure: DEFAULT_FEED_LIMITS.slowConsumerBytes * 4,
    closeOnBackpressureLimit: true,
    open: (ws) => {
      ws.subscribe(BARE_TOPIC);
    },
    // The probe's message comes back published on a topic of its own, behind whatever the
    // topic's fan-out has queued: a probe published to every subscriber would add to the load.
    message: (ws, message) => {
      ws.subscribe(PROBE_TOPIC);
      app.publish(PROBE_TOPIC, message, false, false);
    },
  });
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket) => {
      if (!socket) {
        reject(new Error('bare pub/sub: cannot listen on 127.0.0.1'));
        return;
      }
      resolve({
        port: uws.us_socket_local_port(socket as unknown as Uws.us_socket),
        publish: (text) => {
          app.publish(BARE_TOPIC, text, false, false);
        },
        subscribers: () => app.numSubscribers(BARE_TOPIC),
        close: () => {
          uws.us_listen_socket_close(socket);
          app.close();
        },
      });
    });
  });
}

/**
 * `passesPerSecond` fan-outs for `seconds`, evenly spaced, as the exchange publishes a frame: each
 * pass publishes every message whose share of passes (`perPass`, at most 1) is due, in one go.
 * Returns the messages published.
 */
async function publishPaced(server: BarePubSub, passesPerSecond: number, messages: { text: string; perPass: number }[], seconds: number): Promise<number> {
  const start = performance.now();
  const passes = Math.floor(passesPerSecond * seconds);
  let published = 0;
  for (let pass = 0; pass < passes; pass++) {
    const at = start + (pass / passesPerSecond) * 1000;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    for (const m of messages) {
      if (Math.floor((pass + 1) * m.perPass) === Math.floor(pass * m.perPass)) continue;
      server.publish(m.text);
      published++;
    }
  }
  return published;
}

let server: BarePubSub | null = null;

async function run(job: BareJob): Promise<Extract<BareReply, { ok: true }>> {
  if (job.op === 'listen') {
    server ??= await startBarePubSub();
    return { ok: true, port: server.port };
  }
  if (server === null) throw new Error('the bare server is not listening');
  const cpu = process.cpuUsage();
  const published = await publishPaced(server, job.passesPerSecond, job.messages, job.seconds);
  const used = process.cpuUsage(cpu);
  return { ok: true, published, subscribers: server.subscribers(), cpuSeconds: (used.user + used.system) / 1e6 };
}

process.on('message', (job: BareJob) => {
  run(job).then(
    (reply) => process.send!(reply satisfies BareReply),
    (error: Error) => process.send!({ ok: false, error: error.message } satisfies BareReply),
  );
});
process.on('disconnect', () => {
  server?.close();
  process.exit(0);
});
