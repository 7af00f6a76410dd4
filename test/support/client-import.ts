import type { PanelEndpoint } from './test-panel.js';

export interface ImportQuery {
  interfaceId: string;
  dryRun?: boolean;
  format?: 'warren' | 'warren-csv' | 'wg-easy-json' | 'wg-easy-sqlite' | 'w-ui';
  sourceInterface?: string;
}

/**
 * POST /api/clients/import with a file (JSON as an object, or bytes) through the typed client, its
 * answer checked against the OpenAPI document like every other call: `{status, body}`.
 */
export async function importClients(
  t: PanelEndpoint,
  token: string,
  file: unknown,
  query: ImportQuery,
  contentType = 'application/octet-stream',
): Promise<{ status: number; body: any }> {
  const bytes = Buffer.isBuffer(file) ? file : Buffer.from(typeof file === 'string' ? file : JSON.stringify(file));
  const { data, error, response } = await t.client(token).POST('/api/clients/import', {
    params: { query: { ...query, dryRun: query.dryRun === undefined ? undefined : query.dryRun ? 'true' : 'false' } },
    body: new Uint8Array(bytes) as unknown as string,
    bodySerializer: (body: unknown) => body as string,
    headers: { 'content-type': contentType },
  });
  return { status: response.status, body: data ?? error };
}
