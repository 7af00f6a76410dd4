import { notifications } from '@mantine/notifications';
import { i18next } from '../i18n.js';

/**
 * A toast after every create and delete, whichever page did it: read from the request itself
 * (a POST to a collection answered 201, a DELETE of one item answered 2xx), so no page can forget.
 */
const KINDS: Record<string, string> = {
  clients: 'client',
  devices: 'device',
  interfaces: 'interface',
  hosts: 'host',
  outbounds: 'outbound',
  nodes: 'node',
  tokens: 'token',
  backups: 'backup',
  'routing/rules': 'rule',
  admins: 'operator',
};
const CREATED = /\/api\/(clients|interfaces|hosts|outbounds|nodes|tokens|routing\/rules|admins)$/;
const DEVICE_CREATED = /\/api\/clients\/[^/]+\/devices$/;
const DELETED =
  /\/api\/(clients|devices|interfaces|hosts|outbounds|nodes|tokens|backups|routing\/rules|admins)\/[^/]+$/;

export function toastIfDone(method: string, url: string, status: number): void {
  const path = new URL(url).pathname;
  let key: string | undefined;
  if (method === 'POST' && status === 201) {
    const kind = DEVICE_CREATED.test(path) ? 'device' : KINDS[CREATED.exec(path)?.[1] ?? ''];
    if (kind) key = `toasts.created.${kind}`;
  } else if (method === 'DELETE' && status >= 200 && status < 300) {
    const kind = KINDS[DELETED.exec(path)?.[1] ?? ''];
    if (kind) key = `toasts.deleted.${kind}`;
  }
  if (key) notifications.show({ message: i18next.t(key), color: 'teal' });
}
