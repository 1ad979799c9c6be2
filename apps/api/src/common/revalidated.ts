import { createHash } from 'node:crypto';
import type { Response } from 'express';

/**
 * Sends a body that clients keep and revalidate (pages, exports and assets: `no-cache` or a
 * max-age) with a weak ETag, so a revalidation of an unchanged body is answered 304 without it
 * (Express compares `If-None-Match` with this header before sending). Express's own ETag is off
 * (see bootstrap.ts): it hashed every GraphQL answer too, and those are `no-store`. The tag has
 * Express's form (`W/"<length in hex>-<SHA-1, base64, 27 characters>"`), so tags that clients
 * kept from before stay valid.
 */
export function sendRevalidated(res: Response, body: string | Buffer): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const hash = createHash('sha1').update(bytes).digest('base64').slice(0, 27);
  res.setHeader('ETag', `W/"${bytes.length.toString(16)}-${hash}"`);
  res.send(bytes);
}
