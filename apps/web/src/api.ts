import { createApiClient, type components } from '../../../libs/api-client/index.js';
import type { ApiErrorBody, FieldError } from '../../../libs/contracts/api-error.js';
import { toastIfDone } from './components/done-toast.js';
import { panelUrl } from './env.js';
import { i18next } from './i18n.js';

export type Schemas = components['schemas'];

/** An answer the API refused: its `{error, field, errors}` and HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field: string,
    /** Every failing field; an answer without the list counts its one `field` (code unknown: its message shows). */
    readonly errors: FieldError[] = field ? [{ field, code: '', message }] : [],
  ) {
    super(message);
  }
}

type ConnectionListener = (event: 'offline' | 'online' | 'expired') => void;
const listeners = new Set<ConnectionListener>();

/** Hears when the API stops answering, answers again, or says the session is over. */
export function onConnection(listener: ConnectionListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const emit = (event: Parameters<ConnectionListener>[0]) => listeners.forEach((listener) => listener(event));

/**
 * The browser's fetch, watched: a request that never reached the panel means the connection is
 * lost (the banner shows until one gets through); a 401 on anything but sign-in means the session
 * ended (back to sign-in, then to the page the person was on).
 */
async function watchedFetch(request: Request): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(request);
  } catch (error) {
    emit('offline');
    // The browser's own words ("Failed to fetch") say nothing to a person: say what happened.
    throw new Error(i18next.t('connection.lost'), { cause: error });
  }
  emit('online');
  toastIfDone(request.method, request.url, response.status);
  if (response.status === 401 && !request.url.endsWith('/api/auth/login')) emit('expired');
  return response;
}

/**
 * The one way the panel talks to the API: the typed client generated from the OpenAPI document
 * (libs/api-client). The session rides in its HttpOnly cookie, never in script-readable storage.
 */
export const api = createApiClient(panelUrl, undefined, { fetch: watchedFetch, credentials: 'same-origin' });

/** The data of an answer, or its `{error, field, errors}` thrown as an ApiError. */
export async function must<T>(answer: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await answer;
  if (!response.ok) {
    const body = (error ?? {}) as Partial<ApiErrorBody>;
    const message = body.error ?? response.statusText;
    const field = body.field ?? '';
    throw new ApiError(response.status, message, field, Array.isArray(body.errors) ? body.errors : undefined);
  }
  return data as T;
}

/** Offers a downloaded body to the browser as a file. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A message for an error the panel did not expect to be an ApiError. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
