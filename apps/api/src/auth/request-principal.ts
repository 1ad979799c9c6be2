import { parse as parseCookies } from 'cookie';
import type { Request } from 'express';
import { AppError } from '@hindsight/domain';
import type { ApiTokensService, Principal, SessionsService } from '@hindsight/tracking';

/** The cookie a signed-in browser carries (HttpOnly, SameSite=Lax; see sign-in.controller.ts). */
export const SESSION_COOKIE = 'hindsight_session';

/** What a request may prove its caller with: an API token, or a person's session cookie. */
export interface Credentials {
  tokens: ApiTokensService;
  sessions: SessionsService;
}

/**
 * The caller of each request, kept beside the request rather than on it, so no global type
 * augmentation of Express is needed. Entries go away with their requests.
 */
const principals = new WeakMap<Request, Promise<Principal | null>>();

export function principalPromise(req: Request): Promise<Principal | null> | undefined {
  return principals.get(req);
}

export function rememberPrincipal(req: Request, principal: Promise<Principal | null>): void {
  principals.set(req, principal);
}

/** The authenticated caller, or null for an anonymous read. Only valid after the guard ran. */
export async function principalOf(req: Request): Promise<Principal | null> {
  return (await principals.get(req)) ?? null;
}

/**
 * The caller named by the request's bearer token or, without one, its session cookie (null
 * with neither), resolved once per request however many places ask: the GraphQL request guard
 * before parsing, then the auth guard for every root field and page route. Either way the
 * result is the same `Principal` with a role, so one guard decides for tokens and people alike.
 * A malformed, unknown or revoked token, or an ended session, is UNAUTHENTICATED.
 */
export function authenticateRequest(req: Request, credentials: Credentials): Promise<Principal | null> {
  let pending = principalPromise(req);
  if (!pending) {
    pending = authenticate(req, credentials);
    rememberPrincipal(req, pending);
  }
  return pending;
}

/** The session cookie's value, or null. */
export function sessionCookieOf(req: Request): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  return parseCookies(header)[SESSION_COOKIE] ?? null;
}

async function authenticate(req: Request, { tokens, sessions }: Credentials): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (header !== undefined && header.trim() !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>".');
    return tokens.authenticate(match[1]!);
  }
  const session = sessionCookieOf(req);
  return session ? sessions.authenticate(session) : null;
}
