import type { Request, Response } from 'express';
import type { SafeHtml } from '@hindsight/web';

export function sendPage(res: Response, status: number, page: SafeHtml): void {
  res.status(status).type('text/html; charset=utf-8').setHeader('Cache-Control', 'no-cache');
  res.send(page.value);
}

/** Scheme, host and port the reader used, for absolute links in runbook snippets. */
export function requestOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/** The query string of the request, with its `?`, or an empty string. */
export function queryStringOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at >= 0 ? req.originalUrl.slice(at) : '';
}
