import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as sent. */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

/**
 * One plain-HTTP request through node:http, for what fetch will not send: a Host header of the
 * caller's choosing, a method token no router knows, a path left exactly as written. Answers are
 * not checked against the OpenAPI document: these requests are off the contract on purpose.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; omitHost?: boolean } = {},
): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      // path as given: URL would normalise it (and encode what the test means to send raw)
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: url.slice(target.origin.length),
        headers: options.headers,
        setHost: !options.omitHost,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
