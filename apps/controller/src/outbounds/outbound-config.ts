import { formatHopAddress } from './hop-address.js';
import type { Outbound } from './outbound.entity.js';

/**
 * A hop as a file or link another client can use (GET /api/outbounds/{id}/config): a WireGuard
 * hop as a wg-quick file of its own side, the proxies as share links that POST
 * /api/outbounds/parse reads back. `withSecrets` false leaves the secrets out (the private and
 * preshared keys' lines, a proxy's password); a shadowsocks link has no form without its
 * password, so it is then null.
 */
export function renderOutboundConfig(row: Outbound, withSecrets: boolean): string | null {
  const address = formatHopAddress(row.host ?? null, row.port ?? null);
  if (address === null) return null;
  const name = `#${encodeURIComponent(row.tag)}`;
  switch (row.kind) {
    case 'wireguard': {
      const lines = ['[Interface]'];
      if (withSecrets) lines.push(`PrivateKey = ${row.privateKey}`);
      lines.push(
        `Address = ${row.tunnelAddress}`,
        `MTU = ${row.mtu}`,
        '',
        '[Peer]',
        `PublicKey = ${row.peerPublicKey}`,
      );
      if (withSecrets && row.presharedKey) lines.push(`PresharedKey = ${row.presharedKey}`);
      lines.push(`Endpoint = ${address}`, `AllowedIPs = ${row.allowedIps.join(', ')}`);
      if (row.keepalive) lines.push(`PersistentKeepalive = ${row.keepalive}`);
      return `${lines.join('\n')}\n`;
    }
    case 'socks':
    case 'http': {
      const user = row.username ? encodeURIComponent(row.username) : '';
      const password = withSecrets && row.password ? `:${encodeURIComponent(row.password)}` : '';
      const credentials = user || password ? `${user}${password}@` : '';
      return `${row.kind === 'socks' ? 'socks5' : 'http'}://${credentials}${address}${name}`;
    }
    case 'shadowsocks': {
      if (!withSecrets) return null;
      const userinfo = Buffer.from(`${row.method}:${row.password}`).toString('base64url');
      return `ss://${userinfo}@${address}${name}`;
    }
    default:
      return null;
  }
}
