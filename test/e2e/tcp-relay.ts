/**
 * A loopback TCP relay standing where a load balancer would: its clients keep one address while
 * the exchange behind it stops and starts again on another port. (A restarted exchange cannot
 * take its old port back at once: uWebSockets.js listens without SO_REUSEADDR, and the
 * connections the stop closed hold the port in TIME_WAIT for a minute.) While nothing answers
 * at the target, a client's connection is accepted and closed, as a balancer with no backend does.
 */
import net from 'node:net';

export interface TcpRelay {
  url: string;
  /** New connections go to this port from now on. */
  retarget(port: number): void;
  close(): Promise<void>;
}

export async function startRelay(port: number): Promise<TcpRelay> {
  let target = port;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const [socket, other] of [[client, upstream], [upstream, client]]) {
      open.add(socket);
      socket.on('close', () => {
        open.delete(socket);
        other.destroy();
      });
      socket.on('error', () => socket.destroy());
      socket.pipe(other);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    retarget: (next) => {
      target = next;
    },
    close: () => {
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
