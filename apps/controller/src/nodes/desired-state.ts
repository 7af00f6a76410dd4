import type { EntityManager } from '@mikro-orm/postgresql';
import type { AmneziaParams } from '#libs/wireguard/amnezia.js';
import { intToIp, parseCidr } from '#libs/wireguard/ipv4.js';
import type { DesiredInterface, DesiredPeer, DesiredState } from '#libs/contracts/desired-state.js';

/**
 * What a node must look like at its current revision: its enabled interfaces, each with the peers
 * of active clients' enabled accounts. Read in one repeatable-read snapshot, so the revision and
 * the rows belong together (a change committed meanwhile carries a higher revision and gets its
 * own job).
 */
export async function readDesiredState(em: EntityManager, nodeId: string): Promise<DesiredState | undefined> {
  return em.transactional(
    async (tx) => {
      const [node] = await tx.execute<{ desired_revision: string }[]>('select desired_revision from nodes where id = ?', [nodeId]);
      if (!node) return undefined;
      const interfaces = await tx.execute<
        { id: string; name: string; mode: 'standard' | 'amnezia'; private_key: string; listen_port: number; subnet: string; mtu: number; nat_interface: string | null; awg: AmneziaParams | null }[]
      >(
        `select id, name, mode, private_key, listen_port, subnet, mtu, nat_interface, awg
           from interfaces where node_id = ? and enabled order by name`,
        [nodeId],
      );
      const peers = await tx.execute<{ interface_id: string; public_key: string; preshared_key: string; ip: string }[]>(
        `select a.interface_id, a.public_key, a.preshared_key, a.ip
           from accounts a
           join devices d on d.id = a.device_id
           join clients c on c.id = d.client_id
          where a.node_id = ? and a.enabled and c.status = 'active'
          order by a.interface_id, a.ip`,
        [nodeId],
      );
      const byInterface = new Map<string, DesiredPeer[]>();
      for (const row of peers) {
        let list = byInterface.get(row.interface_id);
        if (!list) byInterface.set(row.interface_id, (list = []));
        list.push({ publicKey: row.public_key, presharedKey: row.preshared_key || null, ip: row.ip });
      }
      return {
        nodeId,
        revision: Number(node.desired_revision),
        interfaces: interfaces.map(
          (row): DesiredInterface => ({
            name: row.name,
            mode: row.mode,
            privateKey: row.private_key,
            listenPort: row.listen_port,
            address: gatewayAddress(row.subnet),
            subnet: row.subnet,
            mtu: row.mtu,
            natInterface: row.nat_interface,
            amnezia: row.mode === 'amnezia' ? row.awg : null,
            peers: byInterface.get(row.id) ?? [],
          }),
        ),
      };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/** The server's own tunnel address: the subnet's first host (.1 of a /24), with the prefix. */
export function gatewayAddress(subnet: string): string {
  const cidr = parseCidr(subnet);
  return `${intToIp(cidr.network + 1)}/${cidr.prefix}`;
}
