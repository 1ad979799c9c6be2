import { Catch, HttpException, Logger, type ArgumentsHost } from '@nestjs/common';
import type { GqlExceptionFilter } from '@nestjs/graphql';
import type { Response } from 'express';
import { clip, clipDetails, describeFault, HTTP_STATUS, INTERNAL_MESSAGE, toAppError } from './errors/app-error.mapping';

export { HTTP_STATUS } from './errors/app-error.mapping';

/**
 * Errors of HTTP routes become JSON with the same codes as GraphQL. GraphQL errors pass through
 * untouched: Apollo's formatError (graphql-error.formatter.ts) maps them, because it also sees
 * errors of field resolvers, DataLoaders and scalars, which Nest's filters never do.
 */
@Catch()
export class AppErrorFilter implements GqlExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): unknown {
    // Rethrown, not returned: Nest's default handler would log the error a second time.
    if (host.getType<string>() === 'graphql') throw exception;
    const res = host.switchToHttp().getResponse<Response>();
    const error = toAppError(exception);
    if (!error) {
      this.logger.error(describeFault(exception));
      res.status(500).json({ code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_MESSAGE });
      return undefined;
    }
    const status = exception instanceof HttpException ? exception.getStatus() : HTTP_STATUS[error.code];
    res.status(status).json({ code: error.code, message: clip(error.message), ...clipDetails(error.details as Record<string, unknown>) });
    return undefined;
  }
}
