import { Body, Controller } from '@nestjs/common';
import { MANAGERS, SIGNED_IN } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { Route } from '../http/route.decorator.js';
import { UpdateSettingsDto } from './dto/settings.dto.js';
import { SettingsDto } from './dto/settings.response.js';
import { SettingsService } from './settings.service.js';

/** Panel-wide options (docs/settings.md). */
@Controller()
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Route({
    method: 'GET',
    path: 'settings',
    group: 'settings',
    roles: SIGNED_IN,
    summary: 'Panel-wide options: backup schedule and retention, probe target and timeout, private targets',
    response: SettingsDto,
  })
  get() {
    return this.settings.get();
  }

  @Route({
    method: 'PATCH',
    path: 'settings',
    group: 'settings',
    roles: MANAGERS,
    summary:
      'Change panel-wide options; the fields given are validated together and written together (backup schedule, retention and private targets: the owner only)',
    example: { backupIntervalHours: 12, backupKeep: 14 },
    response: SettingsDto,
  })
  update(@CurrentPrincipal() principal: Principal, @Body() body: UpdateSettingsDto) {
    return this.settings.update(body, principal.role);
  }
}
