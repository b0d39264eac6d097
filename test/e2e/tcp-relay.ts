/**
 * A loopback TCP relay between the browser and the exchange, standing for the network: `cut()`
 * drops every connection through it and closes each new one at once (as a route that went
 * down, or a balancer with no backend), `restore()` lets connections through again. The
 * exchange behind it never notices more than clients that went away.
 */
import net from 'node:net';

export interface TcpRelay {
  url: string;
  cut(): void;
  restore(): void;
  /** Resolves when the relay next closes a new connection because it is cut: a client's reconnect has failed. */
  refused(): Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(port: number): Promise<TcpRelay> {
  let down = false;
  const open = new Set<net.Socket>();
  const waitingForRefusal: Array<() => void> = [];
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      for (const resolve of waitingForRefusal.splice(0)) resolve();
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
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
  const dropAll = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => {
      down = true;
      dropAll();
    },
    restore: () => {
      down = false;
    },
    refused: () => new Promise((resolve) => waitingForRefusal.push(resolve)),
    close: () => {
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
