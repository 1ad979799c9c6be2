import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SESSION_COOKIE } from '../auth/request-principal';
import { clip, describeFault, HTTP_STATUS, toAppError } from '../common/errors/app-error.mapping';
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
    if (exception instanceof HttpException) {
      sendPage(res, exception.getStatus(), errorView(exception.getStatus(), clip(exception.message)));
      return;
    }
    const error = toAppError(exception);
    if (error?.code === 'UNAUTHENTICATED' && !host.switchToHttp().getRequest<Request>().headers.authorization) {
      // A person without a session (or whose session ended): to the sign-in page, and back here after.
      const req = host.switchToHttp().getRequest<Request>();
      const ended = (error.details as { reason?: string }).reason === 'SESSION_ENDED';
      if (ended) res.clearCookie(SESSION_COOKIE, { path: '/' });
      const back = req.method === 'GET' ? req.originalUrl : (req.get('referer') ? new URL(req.get('referer')!, 'http://x').pathname : '/');
      res.redirect(303, `/sign-in?next=${encodeURIComponent(back)}${ended ? '&ended=1' : ''}`);
      return;
    }
    if (error) {
      const retryAfter = (error.details as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
      sendPage(res, HTTP_STATUS[error.code], errorView(HTTP_STATUS[error.code], clip(error.message)));
      return;
    }
    this.logger.error(describeFault(exception));
    sendPage(res, 500, errorView(500, 'Something went wrong on our side; the server log has the details.'));
  }
}
