import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenReason, isLocalhostName } from '#libs/net/forbidden-targets.js';

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

/** Thrown before any connection: the target is not one the panel may reach. */
class ForbiddenTarget extends Error {}

/**
 * Resolves the endpoint's host now and checks every address it gives against the forbidden
 * targets (libs/net/forbidden-targets.ts). The URL was checked when it was saved, but a name can
 * resolve elsewhere later (DNS rebinding): the connection then goes to the address checked here,
 * never to a second lookup's answer.
 */
async function resolveTarget(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivate && isLocalhostName(bare)) throw new ForbiddenTarget(`${host} is this host`);
  const addresses = isIP(bare) !== 0 ? [{ address: bare, family: isIP(bare) }] : await lookup(bare, { all: true });
  if (addresses.length === 0) throw new Error(`${host} does not resolve`);
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const reason = forbiddenReason(address);
      // The address a name resolved to is not named: the delivery log is read by every manager.
      if (reason)
        throw new ForbiddenTarget(`${host} is or resolves to a forbidden address (${isIP(bare) ? reason : 'private'})`);
    }
  }
  return addresses[0];
}

/** POSTs one signed payload; resolves with the outcome whatever it is (it never throws). */
export async function sendWebhook(request: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.stop ? AbortSignal.any([timeout, request.stop]) : timeout;
  try {
    const url = new URL(request.url);
    const target = await resolveTarget(url.hostname, request.allowPrivateTargets);
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [target]);
      else callback(null, target.address, target.family);
    };
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
