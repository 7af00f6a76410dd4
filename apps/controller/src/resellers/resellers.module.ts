import { Module } from '@nestjs/common';
import { ResellerLimitsRepository } from './reseller-limits.repository.js';

/**
 * Resellers' ceilings and traffic pools (docs/operators.md, "Resellers"): the rows, and the checks
 * clients/ applies to a reseller's creates and changes (ceilings.ts). Set by the owner through
 * admins/, shown by overview/.
 */
@Module({
  providers: [ResellerLimitsRepository],
  exports: [ResellerLimitsRepository],
})
export class ResellersModule {}
