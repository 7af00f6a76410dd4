import { createServer, type Socket } from 'node:net';

/** A loopback listener standing in for a proxy server, keeping every byte it was sent. */
export interface CredentialCatcher {
  port: number;
  /** Everything received so far, over all connections, as latin1 text. */
  received(): string;
  close(): Promise<void>;
}

/**
 * A listener on 127.0.0.1 that plays a SOCKS5 server only as far as asking for a user name and
 * password (method 2) and then refuses them, and answers any other first message (an HTTP
 * CONNECT with its Proxy-Authorization) with a 407: enough for a client to send whatever
 * credentials it holds. For tests that prove credentials do (or do not) reach an address.
 */
export async function startCredentialCatcher(): Promise<CredentialCatcher> {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let first = true;
    socket.on('data', (data) => {
      chunks.push(Buffer.from(data));
      if (first && data[0] === 0x05) socket.write(Buffer.from([0x05, 0x02]));
      else if (first) socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
      else if (data[0] === 0x01) socket.end(Buffer.from([0x01, 0x01]));
      first = false;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    received: () => Buffer.concat(chunks).toString('latin1'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
