import http from 'node:http';
import https from 'node:https';
import { ForbiddenTarget, pinnedLookup, resolveTarget } from '../common/pinned-target.js';

/** A list is share links of a few hundred bytes each: 1 MiB holds thousands, and refuses a blob. */
export const MAX_SUBSCRIPTION_BYTES = 1024 * 1024;
/** The whole fetch (resolving, connecting, the body) within this. */
export const SUBSCRIPTION_FETCH_TIMEOUT_MS = 10_000;

/** A fetch that gave no list, with a sentence saying why (kept as the subscription's lastError). */
export class SubscriptionFetchError extends Error {}

export interface FetchLimits {
  allowPrivateTargets: boolean;
  maxBytes?: number;
  timeoutMs?: number;
}

/**
 * GETs a subscription's URL: the host resolved and checked against the forbidden targets at
 * every fetch (the URL was checked when saved, but a name can move), the connection pinned to
 * the address checked; no redirect followed (it could lead anywhere); at most 1 MiB in 10 s.
 * Answers the body as text, or throws SubscriptionFetchError.
 */
export async function fetchSubscription(text: string, limits: FetchLimits): Promise<string> {
  const maxBytes = limits.maxBytes ?? MAX_SUBSCRIPTION_BYTES;
  const timeoutMs = limits.timeoutMs ?? SUBSCRIPTION_FETCH_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const url = new URL(text);
    const target = await resolveTarget(url.hostname, limits.allowPrivateTargets);
    return await new Promise<string>((resolve, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      const outgoing = transport.get(
        url,
        { lookup: pinnedLookup(target), signal, headers: { 'user-agent': 'Warren-Subscriptions', accept: '*/*' } },
        (response) => {
          const status = response.statusCode ?? 0;
          if (status < 200 || status > 299) {
            response.resume();
            const redirect = status >= 300 && status < 400 ? ' (redirects are not followed: give the final URL)' : '';
            reject(new SubscriptionFetchError(`the server answered ${status}${redirect}`));
            return;
          }
          const declared = Number(response.headers['content-length']);
          if (Number.isFinite(declared) && declared > maxBytes) {
            response.destroy();
            reject(new SubscriptionFetchError(`the list is larger than ${maxBytes} bytes (${declared})`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              response.destroy();
              reject(new SubscriptionFetchError(`the list is larger than ${maxBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
    });
  } catch (error) {
    if (signal.aborted) throw new SubscriptionFetchError(`no complete answer within ${timeoutMs / 1000} s`);
    if (error instanceof SubscriptionFetchError) throw error;
    if (error instanceof ForbiddenTarget)
      throw new SubscriptionFetchError(
        `${error.message}; subscriptions may not point at the panel's own or private addresses unless settings allow private targets`,
      );
    throw new SubscriptionFetchError(`the fetch failed: ${(error as Error).message}`);
  }
}
