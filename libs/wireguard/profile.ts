import { createHash } from 'node:crypto';
import type { AmneziaParams } from './amnezia.js';
import { amneziaLines, ConfigValueError, formatEndpoint, keyValue, safeValue } from './config-text.js';
import { isIpv4 } from './ipv4.js';

// Server-side rendering lives in its own file; re-exported so profile.js is the one import
// for everything a panel renders.
export { renderServerConfig, renderServerPeers } from './server-config.js';
export type { ServerConfigInput, ServerPeer } from './server-config.js';

export interface ClientProfileInput {
  /** The device's private key (never stored anywhere but inside rendered profiles). */
  privateKey: string;
  /** The device's tunnel address on this interface, without prefix. */
  address: string;
  dns: string | readonly string[];
  mtu: number;
  serverPublicKey: string;
  presharedKey?: string | null;
  /** The host clients dial: the interface's endpoint or one of its alternative hosts. */
  endpointHost: string;
  endpointPort: number;
  /** Present for AmneziaWG interfaces. */
  amnezia?: AmneziaParams | null;
}

/** Client traffic goes entirely through the tunnel, IPv6 included so it cannot leak around it. */
const ALLOWED_IPS = '0.0.0.0/0, ::/0';

/** Keeps NAT mappings on the client's side open so the server can reach an idle client. */
const PERSISTENT_KEEPALIVE = 25;

/** A wg-quick profile, ready to import into any WireGuard (or AmneziaWG) client app. */
export function renderClientProfile(p: ClientProfileInput): string {
  if (!isIpv4(p.address)) throw new ConfigValueError(`device address ${JSON.stringify(p.address)} is not IPv4`);
  if (!Number.isInteger(p.mtu) || p.mtu < 576 || p.mtu > 9000) {
    throw new ConfigValueError(`MTU ${p.mtu} is outside 576..9000`);
  }
  const dns = (typeof p.dns === 'string' ? [p.dns] : p.dns).map((d) => safeValue('DNS server', d));

  const lines = [
    '[Interface]',
    `PrivateKey = ${keyValue('device private key', p.privateKey)}`,
    `Address = ${p.address}/32`,
  ];
  if (dns.length > 0) lines.push(`DNS = ${dns.join(', ')}`);
  lines.push(`MTU = ${p.mtu}`);
  if (p.amnezia) lines.push(...amneziaLines(p.amnezia));
  lines.push('', '[Peer]', `PublicKey = ${keyValue('server public key', p.serverPublicKey)}`);
  if (p.presharedKey) lines.push(`PresharedKey = ${keyValue('preshared key', p.presharedKey)}`);
  lines.push(
    `AllowedIPs = ${ALLOWED_IPS}`,
    `Endpoint = ${formatEndpoint(p.endpointHost, p.endpointPort)}`,
    `PersistentKeepalive = ${PERSISTENT_KEEPALIVE}`,
    '',
  );
  return lines.join('\n');
}

/** Characters of the readable part of a profile's file name; see profileFilename. */
const READABLE_LENGTH = 9;
const HASH_LENGTH = 5;

/**
 * A file name for one profile, e.g. "phone-nl1-k3x9a.conf".
 *
 * wg-quick and the WireGuard apps take the tunnel's interface name from the file name, and an
 * interface name is at most 15 characters of [a-zA-Z0-9_=+.-]; a longer stem makes the import
 * fail. So the stem is 9 readable characters (device, host, interface, client, sanitised to
 * [A-Za-z0-9_.-] and truncated, most distinguishing first since one client's profiles all share
 * its name), a dash, and 5 base-36 characters hashed from the unsanitised names. The hash keeps
 * a client's profiles apart after truncation and gives the same name on every download.
 * The result is at most 20 characters and safe on every common file system.
 */
export function profileFilename(
  clientName: string,
  deviceName: string,
  hostName: string,
  interfaceName: string,
): string {
  const readable =
    [deviceName, hostName, interfaceName, clientName]
      .map(sanitise)
      .filter((part) => part !== '')
      .join('-')
      .slice(0, READABLE_LENGTH)
      .replace(/[._-]+$/, '') || 'wg';
  const digest = createHash('sha256')
    .update(JSON.stringify([clientName, deviceName, hostName, interfaceName]))
    .digest();
  const hash = (digest.readUIntBE(0, 6) % 36 ** HASH_LENGTH).toString(36).padStart(HASH_LENGTH, '0');
  return `${readable}-${hash}.conf`;
}

function sanitise(name: string): string {
  return (
    name
      // Decompose accents so "Zoë" keeps its letters as "Zoe" instead of losing them.
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[^A-Za-z0-9_.-]+/g, '_')
      // Leading dots would hide the file on Unix; edge separators only waste the budget.
      .replace(/^[._-]+|[._-]+$/g, '')
  );
}
