import { Controller } from '@nestjs/common';
import { OWNER_ONLY } from '#libs/contracts/user-roles.js';
import { Route } from '../../http/route.decorator.js';
import { SharingDto } from './sharing.response.js';
import { SharingService } from './sharing.service.js';

/** W-UI's account-sharing view: the evidence names where customers connect from, so the owner's. */
@Controller()
export class SharingController {
  constructor(private readonly sharing: SharingService) {}

  @Route({
    method: 'GET',
    path: 'sharing',
    group: 'clients',
    roles: OWNER_ONLY,
    summary:
      'Devices whose endpoints moved between many addresses, or between several at once, within the window, with the addresses and times',
    response: SharingDto,
  })
  list() {
    return this.sharing.list();
  }
}
