import type { Request } from 'express';
import type { Principal } from '@hindsight/tracking';

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
