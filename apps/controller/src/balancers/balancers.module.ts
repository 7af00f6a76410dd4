import { Module } from '@nestjs/common';
import { OutboundsModule } from '../outbounds/outbounds.module.js';
import { BalancersController } from './balancers.controller.js';
import { BalancersRepository } from './balancers.repository.js';
import { BalancersService } from './balancers.service.js';

/** Balancers per node (docs/outbounds.md, "Balancers"); exports the service for the audit's readers. */
@Module({
  imports: [OutboundsModule],
  controllers: [BalancersController],
  providers: [BalancersService, BalancersRepository],
  exports: [BalancersService],
})
export class BalancersModule {}
