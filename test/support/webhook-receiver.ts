import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../libs/contracts/webhook-signature.js';

/** One POST a receiver took, with whether its Warren-Signature verified against the secret. */
export interface ReceivedWebhook {
  body: string;
  event: { id: string; kind: string; subject: { type: string; id: string; name: string }; [key: string]: unknown };
  headers: IncomingHttpHeaders;
  verified: boolean;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Requests that came in and were never answered (a receiver that hangs). */
  pending: number;
  /** The secret signatures are checked with (known once the endpoint is created). */
  secret: string;
  close(): Promise<void>;
}

/**
 * A local webhook endpoint on loopback (docs/notifications.md). `answer`: the status it gives
 * (default 204); `hang`: it reads the request and never answers (a slow or dead endpoint).
 */
export async function startWebhookReceiver(
  options: { answer?: number; hang?: boolean } = {},
): Promise<WebhookReceiver> {
  const held: ServerResponse[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    pending: 0,
    secret: '',
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (options.hang) {
        receiver.pending++;
        held.push(response);
        return;
      }
      const signature = request.headers['warren-signature'];
      receiver.received.push({
        body,
        event: JSON.parse(body) as ReceivedWebhook['event'],
        headers: request.headers,
        verified: verifyWebhook(receiver.secret, body, typeof signature === 'string' ? signature : undefined),
      });
      response.writeHead(options.answer ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
