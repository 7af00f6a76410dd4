import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { OperatorScope, OwnerFilter } from '../auth/operator-scope.js';
import { conflict, notFound } from '../http/api-error.js';
import { checkInterfaces, effectiveDeviceLimit } from '../resellers/ceilings.js';
import { ResellerLimitsRepository } from '../resellers/reseller-limits.repository.js';
import { bumpRevisions } from '../revisions/revisions.js';
import { AccountsRepository } from './accounts.repository.js';
import type { DeviceView } from './client-view.js';
import { ClientsRepository } from './clients.repository.js';
import { ClientsService, type ClientDetail } from './clients.service.js';
import { DevicesRepository } from './devices.repository.js';
import { ProvisioningService } from './provisioning.service.js';

/** A client's devices: adding one (within the device limit), removing one, rotating keys. */
@Injectable()
export class DevicesService {
  constructor(
    @Inject(MikroORM) private readonly orm: MikroORM,
    private readonly clientsService: ClientsService,
    private readonly clients: ClientsRepository,
    private readonly devices: DevicesRepository,
    private readonly accounts: AccountsRepository,
    private readonly provisioning: ProvisioningService,
    private readonly resellers: ResellerLimitsRepository,
  ) {}

  /**
   * "At most deviceLimit devices", enforced atomically: the client row is locked for the whole
   * transaction, so concurrent additions to one client run one after another and each counts the
   * devices the previous ones committed. A reseller's device is a client growing: it must stay
   * within their interface and node ceilings, and (under a client ceiling) within a bounded device
   * count even when the client's limit is 0 (docs/operators.md, "Ceilings").
   */
  async add(clientId: string, name: string, scope: OperatorScope): Promise<DeviceView> {
    const now = new Date();
    const deviceId = await this.orm.em.fork().transactional(async (em) => {
      // The client's row, then the reseller's: the order a reseller's change of a client takes.
      const client = await this.clients.lock(em, clientId, scope);
      const account = scope.ceilings ? await this.resellers.lock(em, scope.userId) : undefined;
      const devices = await this.devices.count(em, clientId);
      const limit = account ? effectiveDeviceLimit(account, client.deviceLimit) : client.deviceLimit;
      if (limit > 0 && devices >= limit) {
        throw conflict(
          `the client already has ${devices} of at most ${limit} devices; raise deviceLimit or delete a device`,
          'deviceLimit',
        );
      }
      if (await this.devices.nameTaken(em, clientId, name)) {
        throw conflict(`the client already has a device named "${name}" (case is ignored)`, 'name');
      }
      const interfaces = await this.provisioning.lockInterfaces(em, await this.clients.interfaceIds(em, clientId));
      if (account) checkInterfaces(account, interfaces);
      const [id] = await this.devices.insert(em, clientId, [name], now);
      await this.provisioning.createAccounts(em, [id], interfaces, now);
      await bumpRevisions(
        em,
        interfaces.map((iface) => iface.nodeId),
      );
      return id;
    });
    const device = await this.devices.view(this.orm.em.fork(), deviceId);
    if (!device) throw notFound('device not found', 'id');
    return device;
  }

  async remove(deviceId: string, scope: OwnerFilter): Promise<{ id: string; deleted: true }> {
    await this.orm.em.fork().transactional(async (em) => {
      const clientId = await this.devices.clientOf(em, deviceId, scope);
      if (!clientId) throw notFound('device not found', 'id');
      // The same lock as add(): a removal and an addition on one client never interleave.
      await this.clients.lock(em, clientId, scope);
      const nodes = await this.accounts.nodesOfDevice(em, deviceId);
      if (!(await this.devices.delete(em, deviceId))) throw notFound('device not found', 'id');
      await bumpRevisions(em, nodes);
    });
    return { id: deviceId, deleted: true };
  }

  /** New key pairs and preshared keys for every account of the client; addresses stay. */
  async rotateKeys(clientId: string, scope: OwnerFilter): Promise<ClientDetail> {
    await this.orm.em.fork().transactional(async (em) => {
      await this.clients.lock(em, clientId, scope);
      if ((await this.provisioning.rotateKeys(em, clientId)) > 0)
        await bumpRevisions(em, await this.clients.nodesOf(em, [clientId]));
    });
    return this.clientsService.get(clientId, scope);
  }
}
