import etag from 'etag';
import type { Response } from 'express';

/**
 * Sends a body that clients keep and revalidate (pages, exports and assets: `no-cache` or a
 * max-age) with a weak ETag, so a revalidation of an unchanged body is answered 304 without it
 * (Express compares `If-None-Match` with this header before sending). Express's own ETag is off
 * (see bootstrap.ts): it hashed every GraphQL answer too, and those are `no-store`. The tag comes
 * from `etag`, the package Express itself uses, so tags that clients kept from before stay valid.
 */
export function sendRevalidated(res: Response, body: string | Buffer): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.setHeader('ETag', etag(bytes, { weak: true }));
  res.send(bytes);
}
