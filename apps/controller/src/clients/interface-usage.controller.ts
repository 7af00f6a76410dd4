import { Body, Controller, Param } from '@nestjs/common';
import { MANAGERS } from '#libs/contracts/user-roles.js';
import { IdPipe } from '../http/id.js';
import { Route } from '../http/route.decorator.js';
import { ClearInterfaceDto, InterfaceClearedDto, InterfaceUsageResetDto } from './dto/interface-usage.response.js';
import { InterfaceAccountsService } from './interface-accounts.service.js';
import { InterfaceUsageService } from './interface-usage.service.js';

/** An interface's usage, which is its clients' (docs/interfaces.md, "Controls"). */
@Controller()
export class InterfaceUsageController {
  constructor(
    private readonly usage: InterfaceUsageService,
    private readonly accounts: InterfaceAccountsService,
  ) {}

  @Route({
    method: 'POST',
    path: 'interfaces/:id/reset-usage',
    group: 'interfaces',
    roles: MANAGERS,
    summary:
      "Zero the usage of the interface's accounts; their clients' totals lose exactly those bytes (an exhausted client under its quota again is active)",
    response: InterfaceUsageResetDto,
    audit: { target: 'interfaces' },
  })
  reset(@Param('id', new IdPipe('interface')) id: string) {
    return this.usage.reset(id);
  }

  @Route({
    method: 'POST',
    path: 'interfaces/:id/clear',
    group: 'interfaces',
    roles: MANAGERS,
    summary:
      "Remove every account on the interface (its devices lose their peers there) and detach its clients; `confirm` must be the interface's name",
    example: { confirm: 'wg0' },
    response: InterfaceClearedDto,
    audit: { target: 'interfaces' },
  })
  clear(@Param('id', new IdPipe('interface')) id: string, @Body() body: ClearInterfaceDto) {
    return this.accounts.clear(id, body.confirm);
  }
}
