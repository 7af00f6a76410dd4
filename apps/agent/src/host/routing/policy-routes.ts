import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunner } from '../command-runner.js';
import { tunnelArg } from '../host-arguments.js';
import { FAIL_CLOSED_METRIC, hex, hopNumbers, slotOfPref, slotOfTable } from './hop-numbers.js';

/**
 * `ip rule` and the routes of WireGuard hops' tables: per hop `fwmark M lookup T` (marked tunnel
 * traffic) and `from <hop address> lookup T` (probes bound to the hop's address), the table's
 * `default dev <hop>`, and with fail-closed an `unreachable default` at a worse metric, so traffic
 * of a hop whose interface vanished is dropped instead of falling through to the main table.
 *
 * Only rules at the agent's preferences and routes in the agent's tables (hop-numbers.ts) are
 * read, compared and changed; the changes run as one `ip -batch` (one process for any number of
 * hops). A no-op apply runs the two reads only.
 */

export interface WireguardHopRoute {
  slot: number;
  interfaceName: string;
  /** The hop's own address without prefix (for the source rule). */
  address: string;
  /** The interface is up: its default route can be added. */
  up: boolean;
}

interface IpRule {
  priority?: number;
  src?: string;
  fwmark?: string;
  table?: string;
}
interface IpRoute {
  type?: string;
  dst?: string;
  dev?: string;
  table?: string;
  metric?: number;
}

export async function reconcilePolicyRoutes(
  runner: CommandRunner,
  stateDir: string,
  hops: readonly WireguardHopRoute[],
  failClosed: boolean,
): Promise<void> {
  const [rulesOut, routesOut] = await Promise.all([
    runner.run('ip', ['-j', '-4', 'rule', 'show']),
    runner.run('ip', ['-j', '-4', 'route', 'show', 'table', 'all']),
  ]);
  const commands = policyRouteCommands(
    JSON.parse(rulesOut.stdout) as IpRule[],
    JSON.parse(routesOut.stdout || '[]') as IpRoute[],
    hops,
    failClosed,
  );
  if (commands.length === 0) return;
  const file = join(stateDir, 'routes.batch');
  writeFileSync(file, `${commands.join('\n')}\n`, { mode: 0o600 });
  // -force: one failing line (a hop interface that vanished meanwhile) does not stop the others.
  await runner.run('ip', ['-force', '-batch', file]);
}

export function policyRouteCommands(
  rules: readonly IpRule[],
  routes: readonly IpRoute[],
  hops: readonly WireguardHopRoute[],
  failClosed: boolean,
): string[] {
  const wantedRules = new Map<number, string>();
  const wantedRoutes = new Map<number, Set<string>>();
  for (const hop of hops) {
    const n = hopNumbers(hop.slot);
    wantedRules.set(n.markRulePref, `fwmark ${hex(n.mark)} lookup ${n.table}`);
    wantedRules.set(n.sourceRulePref, `from ${hop.address} lookup ${n.table}`);
    const routeSet = new Set<string>();
    if (hop.up) routeSet.add(`default dev ${tunnelArg(hop.interfaceName)}`);
    if (failClosed) routeSet.add(`unreachable default metric ${FAIL_CLOSED_METRIC}`);
    wantedRoutes.set(n.table, routeSet);
  }

  const commands: string[] = [];
  const present = new Set<number>();
  for (const rule of rules) {
    if (rule.priority === undefined || !slotOfPref(rule.priority)) continue;
    const wanted = wantedRules.get(rule.priority);
    const actual = rule.fwmark
      ? `fwmark ${normaliseMark(rule.fwmark)} lookup ${rule.table}`
      : `from ${rule.src} lookup ${rule.table}`;
    if (wanted === actual && !present.has(rule.priority)) present.add(rule.priority);
    else commands.push(`rule del pref ${rule.priority}`);
  }
  for (const [pref, spec] of wantedRules) if (!present.has(pref)) commands.push(`rule add pref ${pref} ${spec}`);

  const seen = new Map<number, Set<string>>();
  for (const route of routes) {
    const table = Number(route.table);
    if (!Number.isInteger(table) || slotOfTable(table) === null) continue;
    const key =
      route.type === 'unreachable'
        ? `unreachable default metric ${route.metric ?? 0}`
        : `${route.dst} dev ${route.dev}${route.metric ? ` metric ${route.metric}` : ''}`;
    const wanted = wantedRoutes.get(table);
    if (wanted?.has(key)) (seen.get(table) ?? seen.set(table, new Set()).get(table)!).add(key);
    else
      commands.push(
        `route del ${route.type === 'unreachable' ? 'unreachable ' : ''}${route.dst ?? 'default'}${route.dev ? ` dev ${route.dev}` : ''} table ${table}${route.metric ? ` metric ${route.metric}` : ''}`,
      );
  }
  for (const [table, wanted] of wantedRoutes) {
    for (const key of wanted)
      if (!seen.get(table)?.has(key))
        commands.push(
          `route replace ${key.replace(' metric', ` table ${table} metric`)}${key.includes(' metric') ? '' : ` table ${table}`}`,
        );
  }
  return commands;
}

/** `ip -j` prints marks as hex; ours are written in hex too. */
function normaliseMark(mark: string): string {
  const value = Number(mark.split('/')[0]);
  return Number.isInteger(value) ? hex(value) : mark;
}
