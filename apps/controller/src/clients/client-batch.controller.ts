import { Body, Controller } from '@nestjs/common';
import { MANAGERS } from '#libs/contracts/user-roles.js';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import type { Principal } from '../auth/principal.js';
import { Route } from '../http/route.decorator.js';
import { ClientBatchService } from './client-batch.service.js';
import { BatchCreateClientsDto } from './dto/client-batch.dto.js';
import { ClientBatchResultDto } from './dto/client-batch.response.js';

/** Many clients at once from one description (docs/clients.md, "Batch create"). */
@Controller()
export class ClientBatchController {
  constructor(private readonly batch: ClientBatchService) {}

  @Route({
    method: 'POST',
    path: 'clients/batch',
    group: 'clients',
    roles: MANAGERS,
    summary:
      'Create up to 10,000 clients from one description (name prefix and numbers); all or none, one delivery per node',
    example: {
      namePrefix: 'shop-',
      count: 100,
      start: 1,
      digits: 3,
      groups: ['shop'],
      quotaBytes: 53687091200,
      expiresAt: '2027-01-01T00:00:00Z',
      deviceLimit: 2,
      devicesEach: 1,
      interfaceIds: ['00000000-0000-4000-8000-000000000000'],
    },
    status: 201,
    response: ClientBatchResultDto,
    errors: [404, 409],
  })
  create(@CurrentPrincipal() principal: Principal, @Body() body: BatchCreateClientsDto) {
    return this.batch.create(body, principal);
  }
}
