import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP server serving one text body (an outbound subscription's list), changed by the test. */
export interface ListServer {
  /** http://127.0.0.1:<port>/list */
  url: string;
  body: string;
  /** The status it answers (default 200); 302 also sends a Location. */
  status: number;
  /** Reads the request and never answers (a server that hangs). */
  hang: boolean;
  /** GETs it took. */
  requests: number;
  close(): Promise<void>;
}

export async function startListServer(body = ''): Promise<ListServer> {
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    list.requests++;
    if (list.hang) {
      held.push(response);
      return;
    }
    if (list.status >= 300 && list.status < 400) {
      response.writeHead(list.status, { location: 'http://203.0.113.1/elsewhere' }).end();
      return;
    }
    response.writeHead(list.status, { 'content-type': 'text/plain; charset=utf-8' }).end(list.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const list: ListServer = {
    url: `http://127.0.0.1:${port}/list`,
    body,
    status: 200,
    hang: false,
    requests: 0,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return list;
}
