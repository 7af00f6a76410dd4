import type { EntityManager } from '@mikro-orm/postgresql';
import type { DesiredOutbound, DesiredRouting } from '#libs/contracts/routing.js';
import {
  desiredOutbounds,
  desiredRouting,
  type BalancerRow,
  type BasicRow,
  type ClientAddress,
  type OutboundRow,
  type RuleRow,
} from './desired-routing.js';

/**
 * The node's hops and its routing resolved for the host (desired-routing.ts), inside the
 * caller's snapshot: delivery's desiredState, and the route test (routing/route-test.service.ts). Client addresses are read only for rules that name clients or
 * groups, and only theirs: a node of 100,000 peers without such rules reads none.
 */
export async function nodeRouting(
  tx: EntityManager,
  nodeId: string,
): Promise<{ outbounds: DesiredOutbound[]; routing: DesiredRouting }> {
  const outbounds = await tx.execute<OutboundRow[]>(
    `select id, tag, kind, enabled, slot, host, port, username, password, method, private_key, peer_public_key,
            preshared_key, allowed_ips, tunnel_address, mtu, keepalive, interface_name, health
       from outbounds where node_id = ? order by slot nulls first, tag`,
    [nodeId],
  );
  const [basic] = await tx.execute<BasicRow[]>(
    `select default_outbound_id, block_bit_torrent, block_ips, block_domains, block_ports, direct_ips, direct_domains, fail_closed
       from routing_basics where node_id = ?`,
    [nodeId],
  );
  const rules = await tx.execute<RuleRow[]>(
    `select id, outbound_id, balancer_id, source_ips, source_ports, network, dest_ips, domains, ports, clients, groups, interfaces
       from routing_rules where node_id = ? and enabled order by position, created_at, id`,
    [nodeId],
  );
  const balancers = await tx.execute<BalancerRow[]>(
    'select id, tag, strategy, hops, override_id from balancers where node_id = ? order by tag',
    [nodeId],
  );
  const clientIds = [...new Set(rules.flatMap((rule) => rule.clients))];
  const groups = [...new Set(rules.flatMap((rule) => rule.groups))];
  const addresses =
    clientIds.length + groups.length === 0
      ? []
      : (
          await tx.execute<{ ip: string; client_id: string; groups: string[] }[]>(
            `select a.ip, d.client_id, c.groups
               from accounts a
               join devices d on d.id = a.device_id
               join clients c on c.id = d.client_id
              where a.node_id = ? and (d.client_id = any(array[?]::uuid[]) or c.groups && array[?]::text[])
              order by a.ip`,
            [nodeId, clientIds.length ? clientIds : [null], groups.length ? groups : [null]],
          )
        ).map((row): ClientAddress => ({ ip: row.ip, clientId: row.client_id, groups: row.groups }));
  const interfaceIds = [...new Set(rules.flatMap((rule) => rule.interfaces))];
  const interfaceNames = new Map<string, string>();
  if (interfaceIds.length > 0) {
    const rows = await tx.execute<{ id: string; name: string }[]>(
      'select id, name from interfaces where node_id = ? and id = any(array[?]::uuid[])',
      [nodeId, interfaceIds],
    );
    for (const row of rows) interfaceNames.set(row.id, row.name);
  }
  return {
    outbounds: desiredOutbounds(outbounds),
    routing: desiredRouting({ outbounds, basic, rules, addresses, interfaceNames, balancers }),
  };
}
