import type { QuotaChange } from './quota-allowance.js';

/**
 * The agent's quota table (`table ip warren_quota`): one named quota per client, a map from each
 * peer address to its client's quota, and two rules that charge every packet to it and drop it
 * past the limit: from the client (prerouting, before conntrack, so a dropped packet leaves no
 * state) and to the client (postrouting, after NAT has put the client's address back). They count
 * the inner packets in the tunnel, both directions, as `meta length` (quota-allowance.ts converts).
 *
 * Unlike NAT, the table is never deleted and re-created while quotas exist: that would zero every
 * quota's consumed bytes. A transaction declares it (a no-op when it exists), flushes and refills
 * its chains and map, and changes quotas with `add quota` (an existing one keeps counting; only its
 * limit changes).
 */

export const DEFAULT_QUOTA_TABLE = 'warren_quota';

/** A client id (uuid) as an nftables object name. */
export function quotaName(client: string): string {
  return `c_${client.replaceAll('-', '')}`;
}

export interface QuotaLine {
  client: string;
  ips: readonly string[];
  change: QuotaChange;
  /** The kernel has this quota now (a `create` of an existing one deletes it first). */
  exists: boolean;
}

function quotaLines(table: string, lines: readonly QuotaLine[]): string[] {
  const out: string[] = [];
  for (const { client, change, exists } of lines) {
    if (change.kind === 'keep') continue;
    const name = quotaName(client);
    if (change.kind === 'create' && exists) out.push(`delete quota ip ${table} ${name}`);
    out.push(`add quota ip ${table} ${name} { over ${change.limit} bytes }`);
  }
  return out;
}

/** The whole table for an apply: the quotas wanted, the map rebuilt, stale quotas deleted. */
export function renderQuotaTable(table: string, lines: readonly QuotaLine[], stale: readonly string[]): string {
  if (lines.length === 0) return `table ip ${table} {}\ndelete table ip ${table}\n`;
  const out = [
    `table ip ${table} {`,
    '\tmap client_of { type ipv4_addr : quota; }',
    '\tchain from_client { type filter hook prerouting priority raw; policy accept; }',
    '\tchain to_client { type filter hook postrouting priority 300; policy accept; }',
    '}',
    `flush chain ip ${table} from_client`,
    `flush chain ip ${table} to_client`,
    `flush map ip ${table} client_of`,
    ...stale.map((name) => `delete quota ip ${table} ${name}`),
    ...quotaLines(table, lines),
  ];
  const elements = lines.flatMap(({ client, ips }) => ips.map((ip) => `${ip} : "${quotaName(client)}"`));
  for (let i = 0; i < elements.length; i += 1000)
    out.push(`add element ip ${table} client_of { ${elements.slice(i, i + 1000).join(', ')} }`);
  out.push(
    `add rule ip ${table} from_client quota name ip saddr map @client_of drop`,
    `add rule ip ${table} to_client quota name ip daddr map @client_of drop`,
  );
  return `${out.join('\n')}\n`;
}

/**
 * A report round's corrections: limits changed in place; a quota made anew has its addresses
 * taken out of the map and put back around it (a quota the map points to cannot be deleted).
 * Empty when nothing changes.
 */
export function renderQuotaCorrections(table: string, lines: readonly QuotaLine[]): string {
  const out: string[] = [];
  for (const line of lines) {
    if (line.change.kind === 'keep') continue;
    const recreate = line.change.kind === 'create' && line.exists;
    const name = quotaName(line.client);
    if (recreate) out.push(`delete element ip ${table} client_of { ${line.ips.join(', ')} }`);
    out.push(...quotaLines(table, [line]));
    if (recreate)
      out.push(`add element ip ${table} client_of { ${line.ips.map((ip) => `${ip} : "${name}"`).join(', ')} }`);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
