import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditRecorder } from './audit-recorder.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { AuditTargets } from './audit-targets.js';

/**
 * The audit log. Exports the recorder (its interceptor is installed for every route by app.module.ts), the
 * targets registry (readers of what a target was before a change) and the service (the periodic
 * upkeep in system/ calls it).
 */
@Module({
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, AuditRecorder, AuditTargets],
  exports: [AuditService, AuditTargets, AuditRecorder],
})
export class AuditModule {}
