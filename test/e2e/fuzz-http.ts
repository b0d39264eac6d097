/**
 * A raw HTTP/1.1 client for the fuzz test: one loopback TCP connection per request, bytes
 * written exactly as given (any method token, an undecoded request target with percent
 * garbage or UTF-8, any header, a body of any size or none, with a length or chunked), so the
 * fuzzer can send what `fetch` refuses to build. It answers what came back: a parsed response,
 * the connection closed without one (the HTTP layer refused the framing), or nothing before
 * the timeout. `pipeline` writes several keep-alive requests on one connection before reading
 * (HTTP/1.1 pipelining) and collects the responses in the order they came.
 *
 * The source address is chosen per request among 127.0.0.0/8 (Linux routes all of it to
 * loopback), so the public per-source-address budget spreads over several keys.
 */
import net from 'node:net';

export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the request line. */
  target: string;
  headers: ReadonlyArray<readonly [string, string]>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked in pieces of this many bytes, no Content-Length. */
  chunkBytes?: number;
  /** Leave the connection open after the response (no `Connection: close`), for pipelining. */
  keepAlive?: boolean;
}

export interface RawResponse {
  status: number;
  /** Lower-case header names. */
  headers: Map<string, string>;
  body: Buffer;
}

export type Exchange =
  | { kind: 'response'; response: RawResponse }
  | { kind: 'closed'; detail: string }
  | { kind: 'timeout' };

/** The request as bytes: request line, Host, the given headers, then the body with its length or chunked. */
export function encodeRequest(req: RawRequest): Buffer {
  let head = `${req.method} ${req.target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${req.keepAlive ? '' : 'Connection: close\r\n'}`;
  for (const [name, value] of req.headers) head += `${name}: ${value}\r\n`;
  if (req.body === undefined) return Buffer.from(head + '\r\n', 'utf8');
  if (req.chunkBytes === undefined) return Buffer.concat([Buffer.from(`${head}Content-Length: ${req.body.length}\r\n\r\n`, 'utf8'), req.body]);
  const parts: Buffer[] = [Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n`, 'utf8')];
  for (let at = 0; at < req.body.length; at += req.chunkBytes) {
    const chunk = req.body.subarray(at, at + req.chunkBytes);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** The response at the start of `data` once complete and the bytes it took, or undefined while more bytes are due. */
function parseResponse(data: Buffer, method: string, closed: boolean): { response: RawResponse; bytes: number } | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1] ?? NaN);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP status line: ${JSON.stringify(lines[0])}`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = data.subarray(end + 4);
  if (method === 'HEAD' || status === 204 || status === 304) return { response: { status, headers, body: Buffer.alloc(0) }, bytes: end + 4 };
  const length = headers.get('content-length');
  if (length !== undefined) {
    const n = Number(length);
    return rest.length >= n ? { response: { status, headers, body: rest.subarray(0, n) }, bytes: end + 4 + n } : undefined;
  }
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
    const chunks: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) return { response: { status, headers, body: Buffer.concat(chunks) }, bytes: end + 4 + lineEnd + 4 };
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  // Neither length nor chunks: the body runs until the connection closes.
  return closed ? { response: { status, headers, body: rest }, bytes: data.length } : undefined;
}

export function send(port: number, req: RawRequest, options: { sourceAddress: string; timeoutMs: number }): Promise<Exchange> {
  return new Promise((resolve) => {
    let done = false;
    let received = Buffer.alloc(0);
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: options.sourceAddress });
    const finish = (result: Exchange) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), options.timeoutMs);
    const tryParse = (closed: boolean) => {
      let response: RawResponse | undefined;
      try {
        response = parseResponse(received, req.method, closed)?.response;
      } catch (error) {
        finish({ kind: 'closed', detail: (error as Error).message });
        return;
      }
      if (response !== undefined) finish({ kind: 'response', response });
      else if (closed) finish({ kind: 'closed', detail: received.length === 0 ? 'no bytes' : `partial response: ${JSON.stringify(received.subarray(0, 200).toString('latin1'))}` });
    };
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      tryParse(false);
    });
    // A server that answers early (413) may reset while the body is still being written.
    socket.on('error', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    socket.write(encodeRequest(req));
  });
}

export interface Pipelined {
  /** The responses, in the order they arrived. */
  responses: RawResponse[];
  /** Whether the server closed the connection (or reset it) before `expect` responses came. */
  closed: boolean;
}

/**
 * Writes `writes` (each a run of encoded keep-alive requests, written as one `write`, `gapMs`
 * apart) on one connection without waiting for answers, and reads responses until `expect`
 * have come, the server closes, or `timeoutMs`. `hangUpAfter` closes the connection from the
 * client's side once that many responses have come.
 */
export function pipeline(port: number, writes: readonly Buffer[], options: { expect: number; timeoutMs: number; gapMs?: number; hangUpAfter?: number }): Promise<Pipelined> {
  return new Promise((resolve) => {
    const responses: RawResponse[] = [];
    let received = Buffer.alloc(0);
    let done = false;
    const socket = net.connect({ port, host: '127.0.0.1' });
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses, closed });
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      for (let next = parseResponse(received, 'POST', false); next !== undefined; next = parseResponse(received, 'POST', false)) {
        responses.push(next.response);
        received = received.subarray(next.bytes);
      }
      if (responses.length >= options.expect || responses.length === options.hangUpAfter) finish(false);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('connect', async () => {
      for (const bytes of writes) {
        if (done) return;
        socket.write(bytes);
        if (options.gapMs !== undefined) await new Promise((r) => setTimeout(r, options.gapMs));
      }
    });
  });
}

/** What became of one request on a keep-alive connection. */
export interface KeptAliveAnswer {
  /** When the request's last byte was handed to the kernel (ms since the epoch). */
  sentAt: number;
  /** When the response (or the connection's end) came. */
  answeredAt: number;
  /** The response, or undefined if the connection closed (or was reset) first. */
  response?: RawResponse;
}

/**
 * One keep-alive connection that sends a request, waits for its answer, and sends the next, as an
 * HTTP client with a connection pool does; it notes when each request was fully written, so a
 * test can tell a request sent before an event (a SIGTERM) from one sent after it.
 */
export class KeepAliveConnection {
  private received = Buffer.alloc(0);
  private waiting: ((response: RawResponse | undefined) => void) | null = null;
  closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk) => {
      this.received = Buffer.concat([this.received, chunk]);
      const next = parseResponse(this.received, 'POST', false);
      if (next === undefined) return;
      this.received = this.received.subarray(next.bytes);
      this.answer(next.response);
    });
    const ended = () => {
      this.closed = true;
      this.answer(undefined);
    };
    socket.on('error', ended);
    socket.on('close', ended);
  }

  static open(port: number): Promise<KeepAliveConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => resolve(new KeepAliveConnection(socket)));
      socket.once('error', reject);
    });
  }

  private answer(response: RawResponse | undefined): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.(response);
  }

  /**
   * Sends one encoded keep-alive request and waits for its answer or the connection's end;
   * `onSent` runs once the request is handed to the kernel, before any answer can be read.
   */
  async send(bytes: Buffer, onSent?: () => void): Promise<KeptAliveAnswer> {
    if (this.closed) throw new Error('connection closed');
    let sentAt = Number.POSITIVE_INFINITY;
    const response = await new Promise<RawResponse | undefined>((resolve) => {
      this.waiting = resolve;
      this.socket.write(bytes, (error) => {
        if (error !== undefined && error !== null) return;
        sentAt = Date.now();
        onSent?.();
      });
    });
    return { sentAt, answeredAt: Date.now(), response };
  }

  close(): void {
    this.socket.destroy();
  }
}
