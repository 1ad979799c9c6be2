import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { AppError, type ErrorCode } from '@hindsight/domain';
import { sendPage } from './page-response';
import { errorView } from './views/error.view';

// Same code-to-status mapping as the API's filter; typed on ErrorCode so a new code fails to
// compile here until it has a status.
const HTTP_STATUS: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  BAD_USER_INPUT: 400,
  CONFLICT: 409,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/**
 * Errors on page routes become HTML pages a person can act on (a 404 with a way back to the
 * list), not the JSON the API filter writes. Unexpected errors are logged and masked.
 */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Pages');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (exception instanceof AppError) {
      sendPage(res, HTTP_STATUS[exception.code], errorView(HTTP_STATUS[exception.code], exception.message));
      return;
    }
    if (exception instanceof HttpException) {
      sendPage(res, exception.getStatus(), errorView(exception.getStatus(), exception.message));
      return;
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    sendPage(res, 500, errorView(500, 'Something went wrong on our side; the server log has the details.'));
  }
}
