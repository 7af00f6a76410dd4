import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP relay on 127.0.0.1 between a client and `target`, that the test can freeze: a frozen
 * relay drops every byte both ways and closes nothing, so each end sees a connection that is
 * open and silent, as when a path starts dropping packets (no FIN, no RST). Connections made
 * while frozen are accepted and frozen too (a SYN reaches the relay on loopback; nothing else
 * would). thaw() forwards new connections again; the frozen ones stay dead (their streams lost
 * bytes and cannot carry on) and are destroyed, as the ends have given up on them by then.
 */
export interface TcpRelay {
  port: number;
  /** Connections open now (frozen ones included). */
  connections(): number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  let frozen = false;
  const pairs = new Set<{ inbound: Socket; outbound: Socket; frozen: boolean }>();
  const server = createServer((inbound) => {
    const pair = { inbound, outbound: createConnection(target), frozen };
    pairs.add(pair);
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (!pair.frozen) to.write(chunk);
      });
    forward(inbound, pair.outbound);
    forward(pair.outbound, inbound);
    const end = () => {
      // A frozen pair passes no close on either: the other end must find out by itself.
      if (pair.frozen) return;
      pairs.delete(pair);
      inbound.destroy();
      pair.outbound.destroy();
    };
    for (const socket of [inbound, pair.outbound]) {
      socket.on('error', () => undefined);
      socket.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destroy = (pair: { inbound: Socket; outbound: Socket }) => {
    pair.inbound.destroy();
    pair.outbound.destroy();
  };
  return {
    port: (server.address() as { port: number }).port,
    connections: () => pairs.size,
    freeze() {
      frozen = true;
      for (const pair of pairs) pair.frozen = true;
    },
    thaw() {
      frozen = false;
      for (const pair of [...pairs].filter((p) => p.frozen)) {
        pairs.delete(pair);
        destroy(pair);
      }
    },
    async close() {
      for (const pair of pairs) destroy(pair);
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
