import { Module } from '@nestjs/common';
import { TokensController } from './tokens.controller.js';
import { TokensRepository } from './tokens.repository.js';
import { TokensService } from './tokens.service.js';

/** API tokens for automation. Exports nothing: the CLI builds the repository itself. */
@Module({
  controllers: [TokensController],
  providers: [TokensService, TokensRepository],
})
export class TokensModule {}
