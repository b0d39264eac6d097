/**
 * @module http/uws-sockets
 *
 * The WebSocket endpoint on the server's app: the upgrade decided at once (`admit`, from the
 * client's address; a refusal written plainly), and each socket seen as a `SocketConnection`
 * (send, subscribe to a topic, buffered amount, close with a reason). uWS throws on any call to
 * a socket after its close, so every call is guarded by the socket's `gone` flag. uWS drops a
 * published message for a socket over `maxBackpressure`; the endpoint sets it far above the
 * slow-consumer limit the feeds enforce themselves, and closes such a socket instead of
 * dropping (`closeOnBackpressureLimit`), so no subscriber ever sees a gap.
 * May import: @btc-vision/uwebsockets.js (types), http/client-address, config/ip-address, http/uws-reply, http/uws-types (types).
 */
import type * as Uws from '@btc-vision/uwebsockets.js';
import { clientAddress } from './client-address.ts';
import { canonicalIp } from '../config/ip-address.ts';
import { write } from './uws-reply.ts';
import type { SocketConnection, SocketCounts, SocketEndpoint } from './uws-types.ts';

/** What uWS keeps per socket: the connection the feeds see. */
interface SocketData {
  conn: SocketConnection<unknown> | null;
  /** Closed (by either side): no call reaches uWS any more. */
  gone: boolean;
  state: unknown;
  remoteAddress: string;
}

/** Registers the WebSocket endpoint; `open` holds every open connection (a drain closes them). */
export function openSockets(app: Uws.TemplatedApp, endpoint: SocketEndpoint<unknown>, trusted: ReadonlySet<string>, open: Set<SocketConnection<unknown>>, counts: SocketCounts): void {
  const decoder = new TextDecoder();
  app.ws<SocketData>(endpoint.path, {
    maxPayloadLength: endpoint.maxPayloadBytes,
    idleTimeout: endpoint.idleTimeoutSeconds,
    sendPingsAutomatically: true,
    maxBackpressure: endpoint.maxBackpressureBytes,
    closeOnBackpressureLimit: true,
    upgrade: (res, req, context) => {
      // req is only valid in this callback: copy everything now.
      const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
      const remoteAddress = trusted.size === 0 ? peer : clientAddress(canonicalIp(peer) ?? peer, req.getHeader('x-forwarded-for'), trusted);
      const admitted = endpoint.admit(remoteAddress);
      if ('refuse' in admitted) {
        write(res, admitted.refuse, true);
        return;
      }
      const data: SocketData = { conn: null, gone: false, state: admitted.state, remoteAddress };
      res.upgrade(data, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws) => {
      const data = ws.getUserData();
      // uWS throws on any call to a socket after its close: `gone` guards every call.
      const conn: SocketConnection<unknown> = {
        state: data.state,
        remoteAddress: data.remoteAddress,
        get closed() {
          return data.gone;
        },
        send: (text) => {
          if (data.gone) return false;
          counts.sent++;
          return ws.send(text, false, false) === 1;
        },
        subscribe: (topic) => {
          if (!data.gone) ws.subscribe(topic);
        },
        unsubscribe: (topic) => {
          if (!data.gone) ws.unsubscribe(topic);
        },
        bufferedAmount: () => (data.gone ? 0 : ws.getBufferedAmount()),
        close: (code, reason) => {
          if (data.gone) return;
          data.gone = true;
          ws.end(code, reason);
        },
      };
      data.conn = conn;
      open.add(conn);
      endpoint.open(conn);
    },
    message: (ws, message) => {
      const data = ws.getUserData();
      counts.received++;
      if (!data.gone) endpoint.message(data.conn!, decoder.decode(message));
    },
    close: (ws, code, message) => {
      const data = ws.getUserData();
      data.gone = true;
      open.delete(data.conn!);
      endpoint.close(data.conn!, code, Buffer.from(message).toString());
    },
  });
}
