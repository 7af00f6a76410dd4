import { Injectable } from '@nestjs/common';
import { renderServerConfig } from '#libs/wireguard/server-config.js';
import { DeliveryRepository } from '../nodes/delivery/delivery.repository.js';
import type { InterfaceServerConfigDto } from './dto/server.response.js';
import { ServerRepository } from './server.repository.js';

const SECRET_LINE = /^(PrivateKey|PresharedKey) = .*\n/gm;

/**
 * Every interface's server config (GET /api/configs), rendered from the same desired state the
 * agents are sent and by the same renderer they use, so what is shown is what the node loads.
 */
@Injectable()
export class ServerConfigsService {
  constructor(
    private readonly repository: ServerRepository,
    private readonly delivery: DeliveryRepository,
  ) {}

  /**
   * `withSecrets`: the template's rule (docs/roles.md): only the owner's session reads private
   * keys; an API token, even the owner's, gets the files with those lines left out.
   */
  async all(withSecrets: boolean): Promise<InterfaceServerConfigDto[]> {
    const configs: InterfaceServerConfigDto[] = [];
    // One node at a time: a node's state can be large (100,000 peers), and this is a rare read.
    for (const node of await this.repository.nodes()) {
      const state = await this.delivery.desiredState(node.id);
      for (const iface of state?.interfaces ?? []) {
        const full = renderServerConfig({
          privateKey: iface.privateKey,
          listenPort: iface.listenPort,
          peers: iface.peers,
          amnezia: iface.mode === 'amnezia' ? iface.amnezia : null,
        });
        configs.push({
          nodeId: node.id,
          nodeName: node.name,
          interfaceName: iface.name,
          mode: iface.mode,
          peers: iface.peers.length,
          config: withSecrets ? full : full.replace(SECRET_LINE, ''),
          secretsHidden: !withSecrets,
        });
      }
    }
    return configs;
  }
}
