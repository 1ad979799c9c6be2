import type request from 'supertest';

/** The cookies a response sets, as `name=value` pairs for the next request. */
export function cookiesOf(res: request.Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of (res.headers['set-cookie'] as unknown as string[] | undefined) ?? []) {
    const [pair] = c.split(';');
    const at = pair!.indexOf('=');
    out[pair!.slice(0, at)] = pair!.slice(at + 1);
  }
  return out;
}

/** A `Cookie` header from those pairs (a cleared cookie, empty, is left out). */
export const cookieHeader = (c: Record<string, string>) =>
  Object.entries(c)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');

/** The value of a page's hidden form field (the CSRF token, the version a form was shown at). */
export const hidden = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1];
