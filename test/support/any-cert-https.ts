import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface HttpsAnswer {
  status: number;
  /** The SHA-256 fingerprint of the certificate the server presented (colon-separated, upper case). */
  fingerprint: string;
  body: any;
}

/**
 * One HTTPS request that accepts any certificate and reports which one the server presented: for
 * panels serving their own self-made certificate (fetch would refuse it).
 */
export function anyCertHttps(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        rejectUnauthorized: false,
        headers: { ...options.headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            fingerprint,
            body: JSON.parse(Buffer.concat(chunks).toString() || 'null'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
