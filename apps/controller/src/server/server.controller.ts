import { Controller, Param } from '@nestjs/common';
import { MANAGERS, OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { Route } from '../http/route.decorator.js';
import { CatalogueDto, MetaDto, SecurityWarningsDto, ServerConfigsDto } from './dto/server.response.js';
import { MetaService } from './meta.service.js';
import { SecurityService } from './security.service.js';
import { ServerConfigsService } from './server-configs.service.js';

/** Panel-wide reads: security warnings, public meta and messages, every server config (docs/operations.md). */
@Controller()
export class ServerController {
  constructor(
    private readonly security: SecurityService,
    private readonly meta: MetaService,
    private readonly configs: ServerConfigsService,
  ) {}

  @Route({
    method: 'GET',
    path: 'security/warnings',
    group: 'system',
    // Owner and admin: the people who can act on them; a warning names the owner's weak spots, so not the viewer.
    roles: MANAGERS,
    summary:
      "What weakens this panel's security now (owner password or two-factor, TLS, private targets, backups, agent versions, Redis memory), each with a code, severity and what to do",
    response: SecurityWarningsDto,
  })
  async warnings(): Promise<SecurityWarningsDto> {
    return { warnings: await this.security.warnings() };
  }

  @Route({
    method: 'GET',
    path: 'meta',
    group: 'system',
    public: true,
    summary: "The panel's version, languages and features, for the sign-in page (public: nothing secret, no counts)",
    response: MetaDto,
  })
  getMeta(): MetaDto {
    return this.meta.meta();
  }

  @Route({
    method: 'GET',
    path: 'i18n/:locale',
    group: 'system',
    public: true,
    summary: "The web panel's messages in one language (en or fa); another locale is a 404",
    response: CatalogueDto,
    errors: [404],
  })
  catalogue(@Param('locale') locale: string): CatalogueDto {
    return this.meta.catalogue(locale);
  }

  @Route({
    method: 'GET',
    path: 'configs',
    group: 'interfaces',
    roles: OWNER_ONLY,
    summary:
      "Every enabled interface's server config as its node loads it; private and preshared keys only for the owner's session",
    response: ServerConfigsDto,
  })
  async all(@CurrentPrincipal() principal: Principal): Promise<ServerConfigsDto> {
    // An API token is a credential that can leak into scripts and logs: it never reads keys (the template's rule).
    return { configs: await this.configs.all(principal.via === 'session') };
  }
}
