import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { AppError } from '@hindsight/domain';
import { HTTP_STATUS } from '../common/app-error.filter';
import { sendPage } from './page-response';
import { errorView } from './views/error.view';


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
      if (typeof exception.details.retryAfterSeconds === 'number') res.setHeader('Retry-After', String(exception.details.retryAfterSeconds));
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
