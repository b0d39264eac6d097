/**
 * @module bench/feeds/subscribers
 *
 * The subscribers of bench/feeds.bench.ts, run as a CHILD process (`fork`) so their CPU is not
 * the server's: many WebSocket clients (the `ws` package, as the feed tests and real clients
 * connect) to the exchange's /ws or to the bare uWS baseline. The parent sends one
 * `SubscriberJob` at a time over IPC and gets one reply back.
 *
 * Each client connects from its own loopback source address in groups of
 * `CLIENTS_PER_ADDRESS` (Linux routes all of 127.0.0.0/8 to lo), so the exchange's limit of 50
 * connections per source address holds as it would for real clients.
 *
 * Counting is kept cheap, since these processes share the machine with the server: a message's
 * kind is read from one byte (`{"channel":"b…` a book delta, `{"channel":"t…` trades; anything
 * else — heartbeats, replies, the probe's messages — is not counted), and only one client in
 * `CHECKED_EVERY` parses what it gets and checks the stream: each book delta's
 * `previous_sequence_number` is the sequence its copy is at (from the snapshot on), and trade
 * sequence numbers only grow. Every client counts, so the parent can see that each got the
 * same number of messages (none lost, none closed) between `start` and `stop`.
 * May import: ws, node:.
 */
import WebSocket from 'ws';

/** One more than this many clients per source address would be refused (docs/feeds.md). */
export const CLIENTS_PER_ADDRESS = 50;
const CHECKED_EVERY = 50;
const CONNECT_PARALLEL = 50;

/** The loopback source address of client `index` (127.0.0.2 for the first 50, then .3, …). */
export function sourceAddress(index: number): string {
  const group = 2 + Math.floor(index / CLIENTS_PER_ADDRESS);
  return `127.${Math.floor(group / 65_536) % 256}.${Math.floor(group / 256) % 256}.${group % 256}`;
}

export type SubscriberJob =
  /** Connects clients `first`…`first + count - 1` to `url` (ws://…) and subscribes each to `channels` (none: just connect). */
  | { op: 'connect'; url: string; first: number; count: number; channels: string[] }
  /** Counting starts now (counts and stream checks reset). */
  | { op: 'start' }
  /** Counting stops; the reply is a `SubscriberCounts`. */
  | { op: 'stop' }
  | { op: 'disconnect' };

export interface SubscriberCounts {
  clients: number;
  /** Messages and bytes of each kind, over every client, between start and stop. */
  book: { messages: number; bytes: number };
  trades: { messages: number; bytes: number };
  /** Fewest and most messages (book + trades) one client got. */
  minPerClient: number;
  maxPerClient: number;
  /** First and last counted message, ms after start (this process's clock). */
  firstMs: number;
  lastMs: number;
  /** Clients that were closed since they connected, by code and reason. */
  closed: Record<string, number>;
  /** In the checked clients: deltas that did not chain, trades out of order, messages checked. */
  gaps: number;
  checked: number;
  /** This process's CPU between start and stop, core-seconds, and the wall time. */
  cpuSeconds: number;
  wallSeconds: number;
}

export type SubscriberReply = { ok: true; counts?: SubscriberCounts } | { ok: false; error: string };

const BOOK = 'b'.charCodeAt(0);
const TRADES = 't'.charCodeAt(0);
/** `{"channel":"` is 12 bytes: the channel's first letter follows. */
const KIND_AT = 12;

interface Client {
  socket: WebSocket;
  book: number;
  trades: number;
  /** Checked clients only: the sequence its book copy is at, and the newest trade's. */
  check: { book: number; trade: number } | null;
}

const clients: Client[] = [];
const closed: Record<string, number> = {};
let counting = { book: 0, bookBytes: 0, trades: 0, tradesBytes: 0, first: -1, last: -1, gaps: 0, checked: 0 };
let started = performance.now();
let cpuAtStart = process.cpuUsage();

function onMessage(client: Client, data: Buffer): void {
  const kind = data.length > KIND_AT ? data[KIND_AT] : 0;
  if (kind !== BOOK && kind !== TRADES) return;
  if (client.check !== null) checkStream(client.check, data);
  const now = performance.now() - started;
  if (counting.first < 0) counting.first = now;
  counting.last = now;
  if (kind === BOOK) {
    client.book++;
    counting.book++;
    counting.bookBytes += data.length;
  } else {
    client.trades++;
    counting.trades++;
    counting.tradesBytes += data.length;
  }
}

function checkStream(check: { book: number; trade: number }, data: Buffer): void {
  const m = JSON.parse(data.toString()) as { type: string; sequence_number?: number; previous_sequence_number?: number; trades?: { sequence_number: number }[] };
  if (m.type === 'snapshot') {
    check.book = m.sequence_number!;
    return;
  }
  counting.checked++;
  if (m.type === 'delta') {
    if (m.previous_sequence_number !== check.book) counting.gaps++;
    check.book = m.sequence_number!;
  } else if (m.type === 'trades') {
    for (const t of m.trades!) {
      if (t.sequence_number <= check.trade) counting.gaps++;
      check.trade = t.sequence_number;
    }
  }
}

async function connectOne(url: string, index: number, channels: string[]): Promise<Client> {
  const socket = new WebSocket(url, { localAddress: sourceAddress(index), perMessageDeflate: false, skipUTF8Validation: true });
  const client: Client = { socket, book: 0, trades: 0, check: index % CHECKED_EVERY === 0 && channels.length > 0 ? { book: -1, trade: -1 } : null };
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`client ${index}: upgrade refused with ${res.statusCode}`)));
  });
  socket.on('close', (code, reason) => {
    const key = `${code} ${String(reason)}`;
    closed[key] = (closed[key] ?? 0) + 1;
  });
  if (channels.length > 0) {
    // The reply to the subscription, then (for a book) its snapshot: the client is ready.
    const ready = new Promise<void>((resolve, reject) => {
      let waiting = channels.some((c) => c.startsWith('book.')) ? 2 : 1;
      const first = (data: Buffer): void => {
        const text = data.toString();
        if (text.includes('"type":"error"')) reject(new Error(`client ${index}: ${text}`));
        if (text.includes('"type":"subscribed"')) waiting--;
        if (text.includes('"type":"snapshot"')) {
          waiting--;
          if (client.check !== null) checkStream(client.check, data);
        }
        // Ready: what follows is counted (the snapshot is not: only what flows during a round is).
        if (waiting === 0) {
          socket.off('message', first);
          socket.on('message', (more: Buffer) => onMessage(client, more));
          resolve();
        }
      };
      socket.on('message', first);
    });
    socket.send(JSON.stringify({ op: 'subscribe', id: index, channels }));
    await ready;
  } else {
    socket.on('message', (data: Buffer) => onMessage(client, data));
  }
  return client;
}

async function run(job: SubscriberJob): Promise<SubscriberCounts | undefined> {
  switch (job.op) {
    case 'connect': {
      for (let at = 0; at < job.count; at += CONNECT_PARALLEL) {
        const batch = Array.from({ length: Math.min(CONNECT_PARALLEL, job.count - at) }, (_, k) => connectOne(job.url, job.first + at + k, job.channels));
        clients.push(...(await Promise.all(batch)));
      }
      return undefined;
    }
    case 'start':
      counting = { book: 0, bookBytes: 0, trades: 0, tradesBytes: 0, first: -1, last: -1, gaps: 0, checked: 0 };
      for (const c of clients) c.book = c.trades = 0;
      started = performance.now();
      cpuAtStart = process.cpuUsage();
      return undefined;
    case 'stop': {
      const cpu = process.cpuUsage(cpuAtStart);
      const per = clients.map((c) => c.book + c.trades);
      return {
        clients: clients.length,
        book: { messages: counting.book, bytes: counting.bookBytes },
        trades: { messages: counting.trades, bytes: counting.tradesBytes },
        minPerClient: Math.min(...per),
        maxPerClient: Math.max(...per),
        firstMs: counting.first,
        lastMs: counting.last,
        closed: { ...closed },
        gaps: counting.gaps,
        checked: counting.checked,
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        wallSeconds: (performance.now() - started) / 1000,
      };
    }
    case 'disconnect': {
      await Promise.all(
        clients.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.socket.readyState === WebSocket.CLOSED) return resolve();
              c.socket.once('close', () => resolve());
              c.socket.close();
            }),
        ),
      );
      clients.length = 0;
      for (const key of Object.keys(closed)) delete closed[key];
      return undefined;
    }
  }
}

process.on('message', (job: SubscriberJob) => {
  run(job).then(
    (counts) => process.send!({ ok: true, counts } satisfies SubscriberReply),
    (error: Error) => process.send!({ ok: false, error: error.message } satisfies SubscriberReply),
  );
});
process.on('disconnect', () => process.exit(0));
