import { Body, Controller } from '@nestjs/common';
import { CLIENT_MANAGERS } from '#libs/contracts/user-roles.js';
import { CallerScope, type OperatorScope } from '../auth/operator-scope.js';
import { Route } from '../http/route.decorator.js';
import { ClientBatchService } from './client-batch.service.js';
import { BatchCreateClientsDto } from './dto/client-batch.dto.js';
import { ClientBatchResultDto } from './dto/client-batch.response.js';

/**
 * Many clients at once from one description (docs/clients.md, "Batch create"). A reseller may
 * batch too: the clients are theirs and the whole batch must fit their ceilings.
 */
@Controller()
export class ClientBatchController {
  constructor(private readonly batch: ClientBatchService) {}

  @Route({
    method: 'POST',
    path: 'clients/batch',
    group: 'clients',
    roles: CLIENT_MANAGERS,
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
  create(@Body() body: BatchCreateClientsDto, @CallerScope() scope: OperatorScope) {
    return this.batch.create(body, scope);
  }
}
