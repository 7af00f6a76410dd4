import { OWNER } from './test-panel.js';

/**
 * Plain calls to a panel running as a process of its own (spawned-process.ts): no response
 * checking (that needs the panel's document in this process). `origin` and `token` are read on
 * every call, so they follow a panel killed and started again.
 */
export function processApi(origin: () => string, token: () => string) {
  return {
    async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
      const response = await fetch(`${origin()}/api/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token()}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    /** Signs in as the owner; the session token. */
    async signIn(): Promise<string> {
      const response = await fetch(`${origin()}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(OWNER),
      });
      return ((await response.json()) as { token: string }).token;
    },
  };
}
