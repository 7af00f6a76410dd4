import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toErrorResponse } from './error-response.js';

/** The one place a failed request becomes `{error, field}`; defects are logged, never shown. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = toErrorResponse(exception);
    const detail = exception instanceof Error ? exception.stack : String(exception);
    if (response.unexpected) this.logger.error(detail);
    // A 503 says "try again"; logged, so one that never clears (a leak starving the pool) is seen.
    else if (response.status === 503) this.logger.warn(detail);
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    reply.status(response.status).headers(response.headers).send(response.body);
  }
}
