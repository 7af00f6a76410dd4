import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tlsOptions, type ControllerTrust } from './controller-trust.js';

/** POSTs JSON and parses the JSON answer; `trust` is what the controller's TLS is checked against. */
export function postJson(
  url: string,
  body: unknown,
  options: { trust?: ControllerTrust; timeoutMs?: number } = {},
): Promise<{ status: number; body: unknown }> {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: options.timeoutMs ?? 15_000,
        ...tlsOptions(options.trust),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: keep the text for the error message
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`no answer from ${target.origin} within ${options.timeoutMs ?? 15_000} ms`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}
