import type { Request } from 'express';
import { AppError } from '@hindsight/domain';
import type { ApiTokensService, Principal } from '@hindsight/tracking';

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
 * The caller named by the request's bearer token (null without one), resolved once per request
 * however many places ask: the GraphQL request guard before parsing, then the auth guard for
 * every root field. A malformed, unknown or revoked token is UNAUTHENTICATED.
 */
export function authenticateRequest(req: Request, tokens: ApiTokensService): Promise<Principal | null> {
  let pending = principalPromise(req);
  if (!pending) {
    pending = authenticate(req, tokens);
    rememberPrincipal(req, pending);
  }
  return pending;
}

async function authenticate(req: Request, tokens: ApiTokensService): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>".');
  return tokens.authenticate(match[1]!);
}
