import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

/** A client of the panel API, typed from its OpenAPI document: paths, bodies and answers. */
export type ApiClient = Client<paths>;

/**
 * `baseUrl` is the panel's address with its base path and without `/api`, e.g.
 * `https://panel.example.com/x7k2`; `token` (a session or `wrn_` API token) is sent as Bearer.
 */
export function createApiClient(
  baseUrl: string,
  token?: string,
  options: Omit<ClientOptions, 'baseUrl'> = {},
): ApiClient {
  const headers = {
    ...(options.headers as Record<string, string> | undefined),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  return createClient<paths>({ ...options, baseUrl, headers });
}
