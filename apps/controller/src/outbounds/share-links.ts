import { OUTBOUND_TAG, SHADOWSOCKS_METHODS, type HopKind } from '#libs/contracts/routing.js';

/**
 * Share links and files to an outbound body (POST /api/outbounds/parse, docs/outbounds.md
 * "Parsing share links"). Pure: it reads the text only, and every value it finds is then checked
 * by the create route's own rules (OutboundsService.validateCreate), so a parsed body is one the
 * create route accepts, or the parse is a 400 naming what is wrong.
 */

/** What a link or file gives: the create route's body without the node, plus what was left out. */
export interface ParsedOutbound {
  body: {
    tag: string;
    kind: HopKind;
    address: string;
    username?: string;
    password?: string;
    method?: string;
    privateKey?: string;
    peerPublicKey?: string;
    presharedKey?: string;
    allowedIps?: string[];
    tunnelAddress?: string;
    mtu?: number;
    keepalive?: number;
  };
  /** Settings of the link or file a hop does not use (a WireGuard file's DNS), named so nobody is surprised. */
  ignored: string[];
}

/** A link or file that is not one of the forms above, with a sentence saying what is wrong. */
export class ShareLinkError extends Error {}

export function parseShareText(input: string, tag?: string): ParsedOutbound {
  const text = input.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  let parsed: ParsedOutbound;
  if (scheme === 'ss') parsed = parseShadowsocks(text);
  else if (scheme === 'socks5' || scheme === 'socks' || scheme === 'socks5h') parsed = parseProxy(text, 'socks');
  else if (scheme === 'http') parsed = parseProxy(text, 'http');
  else if (scheme === 'https') {
    throw new ShareLinkError(
      "an https:// proxy speaks TLS to the proxy, which a node's redirector (redsocks) cannot: use the proxy's plain http:// address",
    );
  } else if (scheme !== undefined) {
    throw new ShareLinkError(
      `${scheme}:// links are not supported: give an ss://, socks5://, socks:// or http:// link, or a WireGuard .conf file`,
    );
  } else if (/^\s*\[(Interface|Peer)\]/im.test(text)) parsed = parseWireguardFile(text);
  else {
    throw new ShareLinkError(
      'text is neither a share link (ss://, socks5://, socks://, http://) nor a WireGuard .conf file',
    );
  }
  if (tag !== undefined) parsed.body.tag = tag;
  return parsed;
}

/** base64 or base64url, padded or not; undefined when the text is not that. */
export function fromBase64(text: string): string | undefined {
  const normal = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(normal)) return undefined;
  const decoded = Buffer.from(normal, 'base64').toString('utf8');
  // A round trip catches text that only looks like base64 (`user` would decode to bytes).
  const again = Buffer.from(decoded, 'utf8').toString('base64').replace(/=+$/, '');
  return again === normal.replace(/=+$/, '') ? decoded : undefined;
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ShareLinkError(`the link's ${what} is not valid percent-encoding`);
  }
}

/** A tag from the link's name (#fragment) or its host, cut to what a tag may hold. */
function tagFrom(name: string | undefined, kind: string, host: string): string {
  const cleaned = (name ?? '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  if (OUTBOUND_TAG.test(cleaned)) return cleaned;
  return `${kind}-${host}`.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 64);
}

/** `host:port` as the create route takes it, IPv6 in brackets as the URL gave it. */
function hostPort(url: URL, what: string): { address: string; host: string } {
  if (!url.hostname) throw new ShareLinkError(`the ${what} link names no host`);
  if (!url.port) throw new ShareLinkError(`the ${what} link names no port (host:port)`);
  return { address: `${url.hostname}:${url.port}`, host: url.hostname.replace(/^\[|\]$/g, '') };
}

function asUrl(text: string, what: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new ShareLinkError(`the ${what} link is not a valid URL (scheme://[user:password@]host:port)`);
  }
}

/**
 * SIP002 (`ss://base64url(method:password)@host:port#name`, or the userinfo percent-encoded)
 * and the legacy form (`ss://base64(method:password@host:port)#name`). A plugin (`?plugin=`)
 * changes the wire protocol, which the node's ss-redir does not run: refused.
 */
function parseShadowsocks(text: string): ParsedOutbound {
  const hash = text.indexOf('#');
  const name = hash >= 0 ? decode(text.slice(hash + 1), 'name') : undefined;
  let rest = text.slice('ss://'.length, hash >= 0 ? hash : undefined);
  if (!rest.includes('@')) {
    // Legacy: everything but the name is one base64 string.
    const legacy = fromBase64(rest.replace(/\/$/, ''));
    if (legacy === undefined || !legacy.includes('@'))
      throw new ShareLinkError(
        'the ss:// link is neither SIP002 (userinfo@host:port) nor base64 of method:password@host:port',
      );
    rest = legacy;
    const at = rest.lastIndexOf('@');
    return shadowsocksOf(rest.slice(0, at), `ss://x@${rest.slice(at + 1)}`, name);
  }
  const at = rest.lastIndexOf('@');
  const userinfo = rest.slice(0, at);
  const credentials = fromBase64(decode(userinfo, 'userinfo')) ?? decode(userinfo, 'userinfo');
  return shadowsocksOf(credentials, `ss://x@${rest.slice(at + 1)}`, name);
}

function shadowsocksOf(credentials: string, server: string, name: string | undefined): ParsedOutbound {
  const colon = credentials.indexOf(':');
  if (colon <= 0) throw new ShareLinkError("the ss:// link's userinfo is not method:password");
  const method = credentials.slice(0, colon).toLowerCase();
  const password = credentials.slice(colon + 1);
  if (!(SHADOWSOCKS_METHODS as readonly string[]).includes(method)) {
    throw new ShareLinkError(
      `the ss:// link's cipher ${method} is not one a node runs: ${SHADOWSOCKS_METHODS.join(', ')}`,
    );
  }
  const url = asUrl(server, 'ss://');
  if (url.searchParams.has('plugin'))
    throw new ShareLinkError("the ss:// link needs a plugin (?plugin=), which the node's ss-redir cannot run");
  const { address, host } = hostPort(url, 'ss://');
  return { body: { tag: tagFrom(name, 'ss', host), kind: 'shadowsocks', address, method, password }, ignored: [] };
}

/**
 * `socks5://`/`socks://`/`http://[user:password@]host:port[#name]`. v2rayN writes socks
 * credentials as base64 of `user:password` in the userinfo; both spellings are read.
 */
function parseProxy(text: string, kind: 'socks' | 'http'): ParsedOutbound {
  const url = asUrl(text, kind);
  if (url.pathname !== '' && url.pathname !== '/')
    throw new ShareLinkError(`a ${kind} proxy link is host:port only: it has a path (${url.pathname})`);
  const { address, host } = hostPort(url, kind);
  let username = url.username ? decode(url.username, 'user name') : undefined;
  let password = url.password ? decode(url.password, 'password') : undefined;
  if (username !== undefined && password === undefined) {
    const both = fromBase64(username);
    if (both?.includes(':')) {
      username = both.slice(0, both.indexOf(':'));
      password = both.slice(both.indexOf(':') + 1);
    }
  }
  const name = url.hash ? decode(url.hash.slice(1), 'name') : undefined;
  return {
    body: {
      tag: tagFrom(name, kind, host),
      kind,
      address,
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
    },
    ignored: [],
  };
}

/** Keys a hop takes from a wg-quick file; the rest are named in `ignored` or refused below. */
const WG_IGNORED = new Map(
  ['DNS', 'Table', 'PreUp', 'PostUp', 'PreDown', 'PostDown', 'SaveConfig', 'FwMark', 'ListenPort'].map((key) => [
    key.toLowerCase(),
    key,
  ]),
);
const AMNEZIA_KEYS = new Set(['jc', 'jmin', 'jmax', 's1', 's2', 'h1', 'h2', 'h3', 'h4']);

/** A wg-quick `.conf` with one [Interface] and one [Peer]: the hop is this file's client side. */
function parseWireguardFile(text: string): ParsedOutbound {
  const sections: { name: string; values: Map<string, string> }[] = [];
  const ignored: string[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/\s*[#;].*$/, '').trim();
    if (line === '') continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      sections.push({ name: header[1].toLowerCase(), values: new Map() });
      continue;
    }
    const pair = /^([A-Za-z0-9]+)\s*=\s*(.*)$/.exec(line);
    if (!pair || sections.length === 0)
      throw new ShareLinkError(`line ${index + 1} of the WireGuard file is not "Key = value" under a [section]`);
    const key = pair[1].toLowerCase();
    const values = sections.at(-1)!.values;
    // wg-quick lets Address, DNS and AllowedIPs repeat: the values add up.
    values.set(key, values.has(key) ? `${values.get(key)},${pair[2]}` : pair[2]);
  }
  const iface = sections.filter((section) => section.name === 'interface');
  const peers = sections.filter((section) => section.name === 'peer');
  const other = sections.find((section) => section.name !== 'interface' && section.name !== 'peer');
  if (other) throw new ShareLinkError(`the WireGuard file has a [${other.name}] section: only [Interface] and [Peer]`);
  if (iface.length !== 1) throw new ShareLinkError('the WireGuard file needs exactly one [Interface] section');
  if (peers.length !== 1)
    throw new ShareLinkError(`a hop has one upstream peer: the WireGuard file has ${peers.length} [Peer] sections`);
  const [own] = iface;
  const [peer] = peers;
  for (const key of [...own.values.keys(), ...peer.values.keys()]) {
    if (AMNEZIA_KEYS.has(key))
      throw new ShareLinkError(`the WireGuard file is AmneziaWG (${key}): a hop is plain WireGuard`);
  }
  const need = (values: Map<string, string>, key: string, label: string) => {
    const value = values.get(key);
    if (!value) throw new ShareLinkError(`the WireGuard file has no ${label}`);
    return value;
  };
  const privateKey = need(own.values, 'privatekey', '[Interface] PrivateKey');
  const addresses = need(own.values, 'address', '[Interface] Address')
    .split(',')
    .map((part) => part.trim());
  const tunnelAddress = addresses.find((part) => /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(part));
  if (!tunnelAddress) throw new ShareLinkError("the WireGuard file's Address has no IPv4 address, which a hop needs");
  if (addresses.length > 1)
    ignored.push(...addresses.filter((part) => part !== tunnelAddress).map((part) => `Address ${part}`));
  const endpoint = need(peer.values, 'endpoint', '[Peer] Endpoint');
  const allowed = (peer.values.get('allowedips') ?? '0.0.0.0/0')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const [key, value] of [...own.values, ...peer.values]) {
    // Hook commands are not echoed: they run as root wherever the file is used as is.
    if (WG_IGNORED.has(key))
      ignored.push(`${WG_IGNORED.get(key)} = ${key.endsWith('up') || key.endsWith('down') ? '…' : value}`);
  }
  const known = new Set([
    'privatekey',
    'address',
    'mtu',
    'publickey',
    'presharedkey',
    'endpoint',
    'allowedips',
    'persistentkeepalive',
  ]);
  const unknown = [...own.values.keys(), ...peer.values.keys()].find((key) => !known.has(key) && !WG_IGNORED.has(key));
  if (unknown) throw new ShareLinkError(`the WireGuard file has a key a hop does not know: ${unknown}`);
  const integer = (value: string | undefined, label: string) => {
    if (value === undefined) return undefined;
    if (!/^\d{1,6}$/.test(value.trim()))
      throw new ShareLinkError(`the WireGuard file's ${label} is not a whole number`);
    return Number(value);
  };
  const mtu = integer(own.values.get('mtu'), 'MTU');
  const keepalive = integer(peer.values.get('persistentkeepalive'), 'PersistentKeepalive');
  const host = endpoint.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return {
    body: {
      tag: tagFrom(undefined, 'wg', host),
      kind: 'wireguard',
      address: endpoint,
      privateKey,
      peerPublicKey: need(peer.values, 'publickey', '[Peer] PublicKey'),
      ...(peer.values.get('presharedkey') ? { presharedKey: peer.values.get('presharedkey') } : {}),
      allowedIps: allowed,
      tunnelAddress: tunnelAddress.includes('/') ? tunnelAddress : `${tunnelAddress}/32`,
      ...(mtu !== undefined ? { mtu } : {}),
      ...(keepalive !== undefined ? { keepalive } : {}),
    },
    ignored,
  };
}
