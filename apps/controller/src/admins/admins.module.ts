import { Module } from '@nestjs/common';
import { ResellersModule } from '../resellers/resellers.module.js';
import { AdminsController } from './admins.controller.js';
import { AdminsRepository } from './admins.repository.js';
import { AdminsService } from './admins.service.js';

/** The panel's users as the owner manages them (docs/operators.md). Sign-in and sessions are auth's. */
@Module({
  imports: [ResellersModule],
  controllers: [AdminsController],
  providers: [AdminsService, AdminsRepository],
})
export class AdminsModule {}
