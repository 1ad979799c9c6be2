import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `sha256=<hex HMAC of the raw body>`, the form GitHub's webhooks use, so receivers can check
 * notices with the code they already have for those.
 */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** Constant-time check of a signature header against the body. */
export function verifyBody(secret: string, body: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
