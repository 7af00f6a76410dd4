import { ConfigValueError, integerValue } from '#libs/files/config-value.js';
import type { AmneziaParams } from './amnezia.js';
import { isWireGuardKey } from './keys.js';

export { ConfigValueError };

/**
 * Shared pieces of the INI-like text that wg, wg-quick and awg read. Every value is checked
 * before it is written: a newline smuggled into a host name or DNS entry would otherwise add
 * arbitrary directives (e.g. PostUp commands run as root by wg-quick) to the file.
 */

// wg-quick strips everything after '#', and ',' separates list items; neither belongs inside
// a single value, nor does whitespace or any control character.
const UNSAFE_VALUE = /[\s#,\p{Cc}]/u;

export function safeValue(what: string, value: string): string {
  if (value.length === 0 || UNSAFE_VALUE.test(value)) {
    throw new ConfigValueError(`${what} ${JSON.stringify(value)} cannot be written to a WireGuard config`);
  }
  return value;
}

export function keyValue(what: string, value: string): string {
  if (!isWireGuardKey(value)) throw new ConfigValueError(`${what} is not a base64 WireGuard key`);
  return value;
}

export function portValue(what: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new ConfigValueError(`${what} ${value} is not a port number (1..65535)`);
  }
  return value;
}

/** IPv6 literals must be bracketed, or the port would read as the address's last group. */
export function formatEndpoint(host: string, port: number): string {
  safeValue('endpoint host', host);
  portValue('endpoint port', port);
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${bracketed}:${port}`;
}

/**
 * The [Interface] lines AmneziaWG adds; server and clients must carry identical values. Each must
 * be an integer: the parameters are JSON where they are stored, and a string there (a restored
 * `"h4": "341630256\nPostUp = …"`) would otherwise be written as it is.
 */
export function amneziaLines(p: AmneziaParams): string[] {
  const line = (key: string, field: keyof AmneziaParams) => `${key} = ${integerValue(`AmneziaWG ${field}`, p[field])}`;
  return [
    line('Jc', 'jc'),
    line('Jmin', 'jmin'),
    line('Jmax', 'jmax'),
    line('S1', 's1'),
    line('S2', 's2'),
    line('H1', 'h1'),
    line('H2', 'h2'),
    line('H3', 'h3'),
    line('H4', 'h4'),
  ];
}
