/**
 * @module bench/feeds/probe
 *
 * The latency probe of bench/feeds.bench.ts, run as a CHILD process. One process both sends the
 * orders and holds the feed subscription, so the delay from a fill's acknowledgement to its feed
 * message is read on one clock.
 *
 * Against the exchange, it sends pre-signed pairs one after the other: a maker's ask, then (once
 * acknowledged) a taker's bid at the same price that fills at once. The taker's reply (the fill's
 * acknowledgement) carries `lastUpdateSequenceNumber`, the market sequence number of its fill;
 * the feed's trades message carries that number (`sequence_number`) and the book delta covering
 * it a `sequence_number` at least as high. Each delay is the arrival of that feed message minus
 * the arrival of the reply: both leave the server after the same journal flush, so it is
 * negative when the feed was first. Without a subscription (`subscribe: false`) the probe sends
 * the same orders, so both rounds of the order-path comparison carry the same order flow.
 *
 * Against the bare uWS baseline, it sends a small message the server publishes back to it (on a
 * topic of its own, behind the fan-out under way), and times the round trip.
 * May import: ws, node:, ../report.
 */
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { latency, type Latency } from '../report.ts';

export type ProbeJob =
  /** Starts sending the pairs of `ordersFile` (JSON `[[token, body], [token, body]][]`: maker, taker) to `url`; replies once running. */
  | { op: 'orders'; url: string; wsUrl: string | null; symbol: string; ordersFile: string; loops: number; gapMs: number }
  /** Starts publishing probes through the bare server at `wsUrl`; replies once running. */
  | { op: 'bare'; wsUrl: string; loops: number; gapMs: number }
  /** Stops; the reply is a `ProbeResult`. */
  | { op: 'stop' };

export interface ProbeResult {
  /** Pairs (or bare probes) sent, and the takers that did not fill (no delay then). */
  sent: number;
  unfilled: number;
  /** Fill acknowledged → its trades message / its book delta at this subscriber, ms (null without a subscription). */
  trades: Latency | null;
  book: Latency | null;
  /** Feed messages not seen within `FEED_WAIT_MS` of the reply. */
  missing: number;
  /** The taker's round trip (send → reply), or the bare probe's (send → its published copy), ms. */
  roundTrip: Latency;
}

export type ProbeReply = { ok: true; result?: ProbeResult } | { ok: false; error: string };

const FEED_WAIT_MS = 5_000;
/** Feed arrivals kept to match a reply that comes after them. */
const KEPT = 4_096;


/** Arrivals of one channel's messages: (highest sequence number in it, time); and who waits for one. */
class Arrivals {
  private readonly seqs: number[] = [];
  private readonly times: number[] = [];
  private waiters: { seq: number; resolve: (at: number) => void }[] = [];

  saw(seq: number, at: number): void {
    this.seqs.push(seq);
    this.times.push(at);
    if (this.seqs.length > KEPT) {
      this.seqs.splice(0, KEPT / 2);
      this.times.splice(0, KEPT / 2);
    }
    const due = this.waiters.filter((w) => seq >= w.seq);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => seq < w.seq);
    for (const w of due) w.resolve(at);
  }

  /** When the first message reaching `seq` arrived (or arrives); null after `FEED_WAIT_MS`. */
  arrival(seq: number): Promise<number | null> {
    for (let i = 0; i < this.seqs.length; i++) if (this.seqs[i] >= seq) return Promise.resolve(this.times[i]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(null);
      }, FEED_WAIT_MS);
      const waiter = {
        seq,
        resolve: (at: number) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
      this.waiters.push(waiter);
    });
  }
}

let running: Promise<ProbeResult> | null = null;
let stopping = false;

async function openSocket(wsUrl: string): Promise<WebSocket> {
  const socket = new WebSocket(wsUrl, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function post(url: string, token: string, body: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${url}/account/order`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
  return { status: res.status, json: await res.json() };
}

async function ordersLoop(job: Extract<ProbeJob, { op: 'orders' }>, ready: () => void): Promise<ProbeResult> {
  const pairs = JSON.parse(readFileSync(job.ordersFile, 'utf8')) as [[string, string], [string, string]][];
  const trades = new Arrivals();
  const book = new Arrivals();
  let socket: WebSocket | null = null;
  if (job.wsUrl !== null) {
    socket = await openSocket(job.wsUrl);
    const subscribed = new Promise<void>((resolve, reject) => {
      socket!.on('message', (data: Buffer) => {
        const at = performance.now();
        const m = JSON.parse(data.toString()) as { type: string; sequence_number?: number; trades?: { sequence_number: number }[]; message?: string };
        if (m.type === 'trades') trades.saw(m.trades![m.trades!.length - 1].sequence_number, at);
        else if (m.type === 'delta') book.saw(m.sequence_number!, at);
        else if (m.type === 'subscribed') resolve();
        else if (m.type === 'error') reject(new Error(`probe subscription refused: ${m.message}`));
      });
    });
    socket.send(JSON.stringify({ op: 'subscribe', channels: [`book.${job.symbol}`, `trades.${job.symbol}`] }));
    await subscribed;
  }
  ready();
  const tradeDelays: number[] = [];
  const bookDelays: number[] = [];
  const roundTrips: number[] = [];
  let next = 0;
  let unfilled = 0;
  let missing = 0;
  // `loops` senders take the pairs in turn, each waiting for its fill's feed messages before its next pair.
  const sender = async (): Promise<void> => {
    while (!stopping && next < pairs.length) {
      const [[makerToken, makerBody], [takerToken, takerBody]] = pairs[next++];
      const maker = await post(job.url, makerToken, makerBody);
      if (maker.status !== 200) throw new Error(`probe maker refused: ${maker.status} ${JSON.stringify(maker.json)}`);
      const sentAt = performance.now();
      const taker = await post(job.url, takerToken, takerBody);
      const ackAt = performance.now();
      if (taker.status !== 200) throw new Error(`probe taker refused: ${taker.status} ${JSON.stringify(taker.json)}`);
      roundTrips.push(ackAt - sentAt);
      const order = (taker.json as { status: string; lastUpdateSequenceNumber: number }[])[0];
      if (order.status !== 'filled') {
        unfilled++;
      } else if (socket !== null) {
        const [tradeAt, bookAt] = await Promise.all([trades.arrival(order.lastUpdateSequenceNumber), book.arrival(order.lastUpdateSequenceNumber)]);
        if (tradeAt === null || bookAt === null) missing++;
        if (tradeAt !== null) tradeDelays.push(tradeAt - ackAt);
        if (bookAt !== null) bookDelays.push(bookAt - ackAt);
      }
      await sleep(job.gapMs);
    }
  };
  await Promise.all(Array.from({ length: job.loops }, sender));
  const sent = roundTrips.length;
  socket?.close();
  return {
    sent,
    unfilled,
    trades: socket === null ? null : latency(tradeDelays),
    book: socket === null ? null : latency(bookDelays),
    missing,
    roundTrip: latency(roundTrips),
  };
}

async function bareLoop(job: Extract<ProbeJob, { op: 'bare' }>, ready: () => void): Promise<ProbeResult> {
  const socket = await openSocket(job.wsUrl);
  const waiting = new Map<string, (at: number) => void>();
  socket.on('message', (data: Buffer) => {
    const text = data.toString();
    waiting.get(text)?.(performance.now());
  });
  ready();
  const roundTrips: number[] = [];
  let sent = 0;
  let missing = 0;
  const sender = async (): Promise<void> => {
    while (!stopping) {
      const id = JSON.stringify({ probe: sent++ });
      const back = new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), FEED_WAIT_MS);
        waiting.set(id, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
      const sentAt = performance.now();
      socket.send(id);
      const at = await back;
      waiting.delete(id);
      if (at === null) missing++;
      else roundTrips.push(at - sentAt);
      await sleep(job.gapMs);
    }
  };
  await Promise.all(Array.from({ length: job.loops }, sender));
  socket.close();
  return { sent, unfilled: 0, trades: null, book: null, missing, roundTrip: latency(roundTrips) };
}

async function run(job: ProbeJob): Promise<ProbeResult | undefined> {
  if (job.op === 'stop') {
    if (running === null) throw new Error('the probe is not running');
    stopping = true;
    const result = await running;
    running = null;
    return result;
  }
  if (running !== null) throw new Error('the probe is already running');
  stopping = false;
  return new Promise<undefined>((resolve, reject) => {
    const loop = job.op === 'orders' ? ordersLoop(job, () => resolve(undefined)) : bareLoop(job, () => resolve(undefined));
    running = loop;
    // A failure before `ready` fails the start; after it, the stop.
    loop.catch(reject);
  });
}

process.on('message', (job: ProbeJob) => {
  run(job).then(
    (result) => process.send!({ ok: true, result } satisfies ProbeReply),
    (error: Error) => process.send!({ ok: false, error: error.message } satisfies ProbeReply),
  );
});
process.on('disconnect', () => process.exit(0));
