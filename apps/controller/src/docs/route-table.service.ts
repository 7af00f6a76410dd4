import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { UserRole } from '#libs/contracts/user-roles.js';
import { ROUTE_SPEC, type RouteSpec } from '../http/route.decorator.js';
import { WARREN_CONFIG } from '../runtime.js';
import type { WarrenConfig } from '../config/config.js';

export type RouteEntry = RouteSpec & {
  /** Full path as served, with the base path and `{name}` parameters, e.g. `/x7k2/api/tokens/{id}`. */
  fullPath: string;
  auth: boolean;
  /** The roles that may call the route; empty for a public route (no credentials needed). */
  allowedRoles: readonly UserRole[];
};

/** The one route table: collected from the `@Route` declarations of every controller. */
@Injectable()
export class RouteTableService implements OnModuleInit {
  private entries: RouteEntry[] = [];

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(WARREN_CONFIG) private readonly config: WarrenConfig,
  ) {}

  onModuleInit(): void {
    const entries: RouteEntry[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const spec = this.reflector.get<RouteSpec | undefined>(ROUTE_SPEC, prototype[method] as () => unknown);
        if (!spec) continue;
        entries.push({
          ...spec,
          fullPath: `${this.config.basePath}/api/${spec.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
          auth: !spec.public,
          allowedRoles: spec.public ? [] : spec.roles,
        });
      }
    }
    this.entries = entries.sort((a, b) => a.group.localeCompare(b.group) || a.fullPath.localeCompare(b.fullPath));
  }

  all(): readonly RouteEntry[] {
    return this.entries;
  }
}
