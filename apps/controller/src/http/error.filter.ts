import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toErrorResponse } from './error-response.js';

/** The one place a failed request becomes `{error, field}`; defects are logged, never shown. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = toErrorResponse(exception);
    if (response.unexpected) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    reply.status(response.status).headers(response.headers).send(response.body);
  }
}
