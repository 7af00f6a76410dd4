import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatCidr, parseCidr } from '#libs/wireguard/ipv4.js';
import { CommandError, type CommandRunner } from './command-runner.js';
import { writeFileAtomic } from '#libs/files/atomic-file.js';
import { HostArgumentError, uplinkArg } from './host-arguments.js';

/**
 * NAT for tunnel subnets: one nftables table that belongs to the agent alone, rebuilt whole on
 * every apply. The file deletes and re-creates the table in one `nft -f` transaction, so rules
 * never disappear in between, nothing else's rules are touched, and whatever someone changed
 * in the table by hand is put back. (`table … {}` first makes the delete valid when the table
 * does not exist yet.)
 */

export const DEFAULT_NAT_TABLE = 'warren';

export interface NatRule {
  /** Tunnel network, e.g. 10.8.0.0/24. */
  subnet: string;
  /** Uplink the traffic leaves through, masqueraded to its address. */
  outInterface: string;
}

/** Why a rule cannot be written (a value nft would misread), or null when it is fine. */
export function natRuleProblem(rule: NatRule): string | null {
  try {
    parseCidr(rule.subnet);
  } catch (error) {
    return `NAT subnet: ${(error as Error).message}`;
  }
  // The name is quoted in the ruleset: no quotes, spaces or backslashes may reach it.
  try {
    uplinkArg(rule.outInterface);
  } catch (error) {
    if (error instanceof HostArgumentError) return error.message;
    throw error;
  }
  return null;
}

export function renderNatRuleset(table: string, rules: readonly NatRule[]): string {
  const lines = [`table ip ${table} {}`, `delete table ip ${table}`];
  if (rules.length === 0) return `${lines.join('\n')}\n`;
  lines.push(
    `table ip ${table} {`,
    '\tchain postrouting {',
    '\t\ttype nat hook postrouting priority srcnat; policy accept;',
    ...rules.map(
      (r) => `\t\tip saddr ${formatCidr(parseCidr(r.subnet))} oifname "${uplinkArg(r.outInterface)}" masquerade`,
    ),
    '\t}',
    '}',
  );
  return `${lines.join('\n')}\n`;
}

/**
 * Loads the table (or removes it when there are no rules) and, when there are rules, turns on
 * IPv4 forwarding. Forwarding is never turned off again: other things on the host may rely on it.
 */
export async function applyNat(
  runner: CommandRunner,
  stateDir: string,
  table: string,
  rules: readonly NatRule[],
): Promise<void> {
  const file = join(stateDir, 'nat.nft');
  writeFileAtomic(file, renderNatRuleset(table, rules), { durable: false });
  await runner.run('nft', ['-f', file]);
  if (rules.length > 0) await enableForwarding(runner);
}

/**
 * Through the runner, so it is the namespace's (or host's) own /proc/sys that changes. A host
 * without procps (minimal images) gets the file written directly, which is the same thing when
 * the agent runs in the host's own namespace.
 */
async function enableForwarding(runner: CommandRunner): Promise<void> {
  try {
    await runner.run('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
  } catch (error) {
    if (!(error instanceof CommandError && error.reason === 'not-found' && runner.namespace === undefined)) throw error;
    writeFileSync('/proc/sys/net/ipv4/ip_forward', '1\n');
  }
}
