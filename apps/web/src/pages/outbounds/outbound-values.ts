import type { Schemas } from '../../api.js';
import type { KINDS, METHODS, Outbound } from './types.js';

export const FIELDS = [
  'tag',
  'kind',
  'address',
  'username',
  'password',
  'method',
  'privateKey',
  'peerPublicKey',
  'presharedKey',
  'allowedIps',
  'tunnelAddress',
  'mtu',
  'keepalive',
  'note',
  'enabled',
];

/** The form's starting values: the outbound's (secrets left empty, kept unless typed), or a new one's defaults. */
export function outboundValues(outbound?: Outbound) {
  return {
    tag: outbound?.tag ?? '',
    kind: (outbound?.kind ?? 'socks') as (typeof KINDS)[number],
    address: outbound?.address ?? '',
    username: outbound?.username ?? '',
    password: '',
    method: (outbound?.method || 'chacha20-ietf-poly1305') as (typeof METHODS)[number],
    /** Set only by a parsed WireGuard file (the hop's own key from it); otherwise the panel generates one. */
    privateKey: '',
    peerPublicKey: outbound?.wireguard?.peerPublicKey ?? '',
    presharedKey: '',
    allowedIps: outbound?.wireguard?.allowedIps ?? ['0.0.0.0/0'],
    tunnelAddress: outbound?.wireguard?.tunnelAddress ?? '',
    mtu: outbound?.wireguard?.mtu ?? 1420,
    keepalive: outbound?.wireguard?.keepalive ?? 25,
    note: outbound?.note ?? '',
    enabled: outbound?.enabled ?? true,
  };
}

export type OutboundValues = ReturnType<typeof outboundValues>;

/** The fields sent for the kind: a secret is sent only when typed (or required, for a new shadowsocks hop). */
export function kindBody(values: OutboundValues, outbound?: Outbound) {
  return values.kind === 'wireguard'
    ? {
        peerPublicKey: values.peerPublicKey.trim(),
        allowedIps: values.allowedIps,
        tunnelAddress: values.tunnelAddress.trim(),
        mtu: Number(values.mtu),
        keepalive: Number(values.keepalive),
        ...(values.presharedKey ? { presharedKey: values.presharedKey.trim() } : {}),
        ...(values.privateKey ? { privateKey: values.privateKey } : {}),
      }
    : values.kind === 'shadowsocks'
      ? { method: values.method, ...(values.password || !outbound ? { password: values.password } : {}) }
      : { username: values.username.trim() || null, ...(values.password ? { password: values.password } : {}) };
}

/** A parsed share link or file (POST /api/outbounds/parse) as the form's values, the rest as they were. */
export function valuesFromParsed(before: OutboundValues, parsed: Schemas['CreateOutboundDto']): OutboundValues {
  return {
    ...before,
    tag: parsed.tag ?? before.tag,
    kind: parsed.kind as OutboundValues['kind'],
    address: parsed.address ?? before.address,
    username: parsed.username ?? '',
    password: parsed.password ?? '',
    method: (parsed.method ?? before.method) as OutboundValues['method'],
    privateKey: parsed.privateKey ?? '',
    peerPublicKey: parsed.peerPublicKey ?? '',
    presharedKey: parsed.presharedKey ?? '',
    allowedIps: parsed.allowedIps ?? before.allowedIps,
    tunnelAddress: parsed.tunnelAddress ?? '',
    mtu: parsed.mtu ?? before.mtu,
    keepalive: parsed.keepalive ?? before.keepalive,
  };
}
