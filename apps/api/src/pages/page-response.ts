import type { Request, Response } from 'express';
import type { SafeHtml } from '@hindsight/web';
import { sendRevalidated } from '../common/revalidated';

export function sendPage(res: Response, status: number, page: SafeHtml): void {
  res.status(status).type('text/html; charset=utf-8').setHeader('Cache-Control', 'no-cache');
  sendRevalidated(res, page.value);
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

/** First string value per query parameter (the fields of a GET form); null when there are none. */
export function formFields(query: Record<string, unknown>): Record<string, string> | null {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields[name] = first;
  }
  return Object.keys(fields).length > 0 ? fields : null;
}
