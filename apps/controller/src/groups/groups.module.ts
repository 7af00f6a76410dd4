import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients/clients.module.js';
import { GroupsController } from './groups.controller.js';
import { GroupsRepository } from './groups.repository.js';
import { GroupsService } from './groups.service.js';

/** Groups of clients (docs/groups.md); membership lives in the clients' rows, selected through clients/. */
@Module({
  imports: [ClientsModule],
  controllers: [GroupsController],
  providers: [GroupsRepository, GroupsService],
})
export class GroupsModule {}
