import { Catch, HttpException, Logger, type ArgumentsHost } from '@nestjs/common';
import type { GqlExceptionFilter } from '@nestjs/graphql';
import type { Response } from 'express';
import { GraphQLError } from 'graphql';
import { AppError, type ErrorCode } from '@hindsight/domain';

/** The HTTP status of each error code, for routes that answer HTTP rather than GraphQL. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  BAD_USER_INPUT: 400,
  CONFLICT: 409,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  TOO_MANY_REQUESTS: 429,
  QUERY_TOO_COMPLEX: 400,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** An AppError as GraphQL reports it: the code in `extensions.code`, beside the error's details. */
export function graphqlErrorOf(error: AppError): GraphQLError {
  return new GraphQLError(error.message, { extensions: { code: error.code, ...error.details } });
}

/**
 * The one place where errors become responses: an AppError keeps its code (GraphQL
 * `extensions.code`, or the HTTP status for pages); anything else is logged and masked.
 */
@Catch()
export class AppErrorFilter implements GqlExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): unknown {
    const error = this.toAppError(exception);
    if (host.getType<string>() === 'graphql') {
      return graphqlErrorOf(error);
    }
    const res = host.switchToHttp().getResponse<Response>();
    if (exception instanceof HttpException) {
      res.status(exception.getStatus()).json(exception.getResponse());
      return undefined;
    }
    res.status(HTTP_STATUS[error.code]).json({ code: error.code, message: error.message, ...error.details });
    return undefined;
  }

  private toAppError(exception: unknown): AppError {
    if (exception instanceof AppError) return exception;
    if (exception instanceof GraphQLError) {
      const code = String(exception.extensions?.code ?? 'INTERNAL');
      return new AppError((code in HTTP_STATUS ? code : 'BAD_USER_INPUT') as ErrorCode, exception.message);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = (Object.entries(HTTP_STATUS).find(([, s]) => s === status)?.[0] ?? 'INTERNAL') as ErrorCode;
      return new AppError(code, exception.message);
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return new AppError('INTERNAL', 'Internal error; the server log has the details.');
  }
}
