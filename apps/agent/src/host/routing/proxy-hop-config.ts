import { isIP } from 'node:net';
import { join } from 'node:path';
import { REDSOCKS_TEXT, type HopConfig } from '#libs/contracts/routing.js';
import { integerValue, textValue } from '#libs/files/config-value.js';
import type { DaemonSpec } from './hop-daemon.js';

/**
 * The config files of the transparent redirectors that carry tunnel TCP into a proxy hop:
 * Debian's `redsocks` for SOCKS5 and HTTP CONNECT, `ss-redir` (shadowsocks-libev) for
 * shadowsocks. Both listen on the hop's redirector port (hop-numbers.ts); nftables redirects the
 * hop's marked TCP there. Credentials live only in these files (0600, in the 0700 state dir),
 * never on a command line where `ps` would show them.
 */

export type ProxyHop = Exclude<HopConfig, { kind: 'wireguard' }>;

export const HOP_PROGRAM: Record<ProxyHop['kind'], 'redsocks' | 'ss-redir'> = {
  socks: 'redsocks',
  http: 'redsocks',
  shadowsocks: 'ss-redir',
};

export function hopFiles(stateDir: string, slot: number) {
  const base = join(stateDir, `hop-${slot}`);
  return { config: `${base}.conf`, pid: `${base}.pid`, log: `${base}.log` };
}

/** redsocks reads a quoted string up to the next quote and knows no escapes. */
function redsocksString(what: string, value: string): string {
  if (!REDSOCKS_TEXT.test(value))
    throw new Error(`${what} contains a quote, backslash or control character, which redsocks cannot read`);
  return `"${value}"`;
}

/** `address` is the hop's host already resolved to an IPv4 address (redsocks wants one). */
export function renderProxyHop(
  config: ProxyHop,
  address: string,
  port: number,
  files: ReturnType<typeof hopFiles>,
): { text: string; daemon: DaemonSpec } {
  if (isIP(address) !== 4) throw new Error(`hop address ${JSON.stringify(address)} is not an IPv4 address`);
  integerValue('redirector port', port);
  integerValue('hop port', config.port);
  if (config.kind === 'shadowsocks') {
    // JSON escapes what it writes; refused all the same, as every renderer does (config-value.ts).
    const text = `${JSON.stringify(
      {
        server: address,
        server_port: config.port,
        local_address: '0.0.0.0',
        local_port: port,
        password: textValue('the password', config.password),
        method: textValue('the method', config.method),
        mode: 'tcp_only',
        timeout: 60,
      },
      null,
      1,
    )}\n`;
    return {
      text,
      daemon: {
        program: 'ss-redir',
        args: ['-c', files.config, '-f', files.pid],
        configFile: files.config,
        pidFile: files.pid,
      },
    };
  }
  const lines = [
    'base {',
    '\tlog_debug = off;',
    '\tlog_info = off;',
    `\tlog = ${redsocksString('log path', `file:${files.log}`)};`,
    '\tdaemon = on;',
    '\tredirector = iptables;',
    '}',
    'redsocks {',
    // Not 127.0.0.1: an nft `redirect` sends to the incoming interface's address. The input
    // guard in the routing table drops every connection to this port that was not redirected.
    '\tlocal_ip = 0.0.0.0;',
    `\tlocal_port = ${port};`,
    `\tip = ${address};`,
    `\tport = ${config.port};`,
    `\ttype = ${config.kind === 'socks' ? 'socks5' : 'http-connect'};`,
  ];
  if (config.username !== null) lines.push(`\tlogin = ${redsocksString('the username', config.username)};`);
  if (config.password !== null) lines.push(`\tpassword = ${redsocksString('the password', config.password)};`);
  lines.push('}');
  return {
    text: `${lines.join('\n')}\n`,
    daemon: {
      program: 'redsocks',
      args: ['-c', files.config, '-p', files.pid],
      configFile: files.config,
      pidFile: files.pid,
    },
  };
}
