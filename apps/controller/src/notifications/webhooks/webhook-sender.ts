import http from 'node:http';
import https from 'node:https';
import { ForbiddenTarget, pinnedLookup, resolveTarget } from '../../common/pinned-target.js';

/** What one POST to an endpoint came to (the delivery log's row). */
export interface SendOutcome {
  status: number | null;
  latencyMs: number;
  error: string | null;
}

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  allowPrivateTargets: boolean;
  timeoutMs: number;
  /** Aborts the attempt early (the controller is stopping): the outcome then says `stopped`. */
  stop?: AbortSignal;
}

/** The error of an attempt cut short by `stop`: not the endpoint's fault, so not logged as its answer. */
export const STOPPED = 'stopped: the controller is shutting down';

/** POSTs one signed payload; resolves with the outcome whatever it is (it never throws). */
export async function sendWebhook(request: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.stop ? AbortSignal.any([timeout, request.stop]) : timeout;
  try {
    const url = new URL(request.url);
    const target = await resolveTarget(url.hostname, request.allowPrivateTargets);
    const pinned = pinnedLookup(target);
    const status = await new Promise<number>((resolve, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      const outgoing = transport.request(
        url,
        {
          method: 'POST',
          lookup: pinned,
          signal,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(request.body),
            'user-agent': 'Warren-Webhooks',
            ...request.headers,
          },
        },
        (response) => {
          response.resume(); // the answer's body is not kept: only its status counts
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
    const ok = status >= 200 && status < 300;
    return { status, latencyMs: elapsed(), error: ok ? null : `answered ${status}` };
  } catch (error) {
    const message = request.stop?.aborted
      ? STOPPED
      : timeout.aborted
        ? `no answer within ${request.timeoutMs / 1000} s`
        : error instanceof ForbiddenTarget
          ? `${error.message}; webhooks may not point at the panel's own or private addresses unless settings allow private targets`
          : (error as Error).message;
    return { status: null, latencyMs: elapsed(), error: message.slice(0, 500) };
  }
}
