import type { ProbeResult } from '#libs/contracts/routing.js';

export type ErrorClass = NonNullable<ProbeResult['errorClass']>;

/** A failure with its class (PROBE_ERROR_CLASSES); the probe's result carries both. */
export class ProbeFailure extends Error {
  constructor(
    readonly errorClass: ErrorClass,
    message: string,
  ) {
    super(message);
  }
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EADDRNOTAVAIL',
  'EPIPE',
  'ENETDOWN',
  'EHOSTDOWN',
]);

/** Classifies a socket error of a given stage (what was being attempted when it happened). */
export function classify(error: unknown, stage: 'connect' | 'handshake' | 'http'): ProbeFailure {
  if (error instanceof ProbeFailure) return error;
  const e = error as NodeJS.ErrnoException;
  const message = e?.message ?? String(error);
  if (e?.code === 'ETIMEDOUT') return new ProbeFailure('timeout', message);
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return new ProbeFailure('dns', message);
  if (stage === 'connect' && e?.code && CONNECT_CODES.has(e.code)) return new ProbeFailure('connect', message);
  if (stage === 'handshake') {
    if (/Authentication failed|auth/i.test(message)) return new ProbeFailure('auth', message);
    // The proxy answered but could not reach the target: the upstream is the problem.
    if (
      /rejected connection|HostUnreachable|ConnectionRefused|NetworkUnreachable|TTLExpired|GeneralFailure/i.test(
        message,
      )
    )
      return new ProbeFailure('upstream', message);
    return new ProbeFailure('handshake', message);
  }
  if (stage === 'http') return new ProbeFailure('upstream', message);
  return new ProbeFailure('connect', message);
}
