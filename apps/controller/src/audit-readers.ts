import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { AuditTargets } from './audit/audit-targets.js';
import { ALL_CLIENTS } from './auth/operator-scope.js';
import { ClientsRepository } from './clients/clients.repository.js';
import { ClientsService } from './clients/clients.service.js';
import { HostGroupsService } from './interfaces/host-groups.service.js';
import { HostsService } from './interfaces/hosts.service.js';
import { InterfacesService } from './interfaces/interfaces.service.js';
import { NodesService } from './nodes/nodes.service.js';
import { OutboundsService } from './outbounds/outbounds.service.js';
import { BalancersService } from './balancers/balancers.service.js';
import { SettingsService } from './settings/settings.service.js';
import { TelegramSettingsService } from './telegram/telegram-settings.service.js';
import { TokensRepository } from './tokens/tokens.repository.js';

/**
 * What each kind of target looked like before a change, for the audit log's old values: one
 * reader per path resource, each the domain's own read of one item (its route's view). Wired here,
 * where the domains meet, so audit/ depends on none of them (docs/audit.md, "Old values"). A
 * route whose resource has no reader is recorded with new values only; add a line here for one.
 */
@Injectable()
export class AuditReaders implements OnModuleInit {
  constructor(private readonly modules: ModuleRef) {}

  onModuleInit(): void {
    const targets = this.modules.get(AuditTargets, { strict: false });
    const get = <T>(type: new (...args: never[]) => T): T => this.modules.get(type, { strict: false });
    const byId = (id: string | null) => {
      if (id === null) throw new Error('no id');
      return id;
    };
    // The audit log is the owner's: old values are read whoever made the change.
    targets.register(
      'clients',
      (id) => get(ClientsService).get(byId(id), ALL_CLIENTS),
      (id) => get(ClientsRepository).nameOf(get(MikroORM).em.fork(), byId(id), ALL_CLIENTS),
    );
    targets.register('interfaces', (id) => get(InterfacesService).get(byId(id)));
    targets.register('nodes', (id) => get(NodesService).get(byId(id)));
    targets.register('outbounds', (id) => get(OutboundsService).get(byId(id)));
    targets.register('balancers', (id) => get(BalancersService).get(byId(id)));
    targets.register('settings', () => get(SettingsService).get());
    targets.register('telegram', () => get(TelegramSettingsService).view());
    targets.register('hosts', async (id) => (await get(HostsService).list()).find((host) => host.id === id) ?? null);
    targets.register(
      'host-groups',
      async (id) => (await get(HostGroupsService).list()).find((group) => group.id === id) ?? null,
    );
    targets.register(
      'tokens',
      async (id) => (await get(TokensRepository).list({})).find((token) => token.id === id) ?? null,
    );
  }
}
