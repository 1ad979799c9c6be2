import { Inject, Injectable, type CanActivate, type ExecutionContext, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { Request } from 'express';
import { AppError } from '@hindsight/domain';
import { ApiTokensService, roleAllows, sameCsrfToken, SessionsService, type Principal, type Role } from '@hindsight/tracking';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { requestOf } from './current-principal.decorator';
import { authenticateRequest } from './request-principal';
import { PUBLIC_ROUTE, READ_OPERATION, REQUIRED_ROLE } from './roles.decorator';

export interface AuthOptions {
  /** Controllers open to anyone whatever PUBLIC_READ says (health, explorer assets). */
  publicControllers: Type<unknown>[];
}

export const AUTH_OPTIONS = Symbol('AUTH_OPTIONS');

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a route handler or resolver and its class declare through the role decorators. */
interface Declarations {
  /** Open to anyone (a public controller, or `@Public()`). */
  open: boolean;
  /** `@RequireRole(...)`, if any. */
  role: Role | undefined;
  /** `@ReadOperation()`: changes nothing a person wrote. */
  read: boolean;
}

/**
 * Decides, before any resolver or route handler runs, whether the caller may proceed:
 * a refused request never reaches a service, so it leaves no trace in the data.
 *
 * - a bearer token that is malformed, unknown or revoked: UNAUTHENTICATED, even for open reads;
 * - an operation that needs a role, without a token: UNAUTHENTICATED;
 * - a token whose role is too low: FORBIDDEN.
 *
 * A signed-in person's session gives a principal of the same shape and role, decided here by the
 * same rules. A write sent with a session must also carry the session's synchroniser token (the
 * `_csrf` form field, or the `x-csrf-token` header for GraphQL), or it is FORBIDDEN: a cookie
 * rides along with requests other sites make, a token on the page does not.
 *
 * The token's last-used time is recorded only once the request is allowed.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    readonly tokens: ApiTokensService,
    readonly sessions: SessionsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AUTH_OPTIONS) private readonly options: AuthOptions,
  ) {}

  /**
   * What a handler and its class declare (open, a required role, a read), read through the
   * reflector once per pair: declarations are fixed when the app is built, and looking them up
   * on every request was about 0.5 % of a GraphQL read's main-thread CPU.
   */
  private readonly declarations = new WeakMap<object, WeakMap<object, Declarations>>();

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isGraphql = context.getType<string>() === 'graphql';
    if (!isGraphql && this.isPublic(context)) return true;
    const req = requestOf(context);
    const needed = this.requiredRole(context, isGraphql, req);
    const principal = await authenticateRequest(req, this);
    if (principal?.via === 'session' && !this.isRead(context, isGraphql, req)) checkCsrf(principal, req);
    if (needed === null) {
      if (principal) await this.tokens.touch(principal);
      return true;
    }
    if (!principal) {
      throw new AppError('UNAUTHENTICATED', `This operation needs role ${needed}: sign in, or send Authorization: Bearer <token>.`, {
        requiredRole: needed,
      });
    }
    if (!roleAllows(principal.role, needed)) {
      throw new AppError('FORBIDDEN', `This operation needs role ${needed}; ${principal.via === 'token' ? 'token' : 'account'} "${principal.name}" has role ${principal.role}.`, {
        requiredRole: needed,
        role: principal.role,
      });
    }
    await this.tokens.touch(principal);
    return true;
  }

  private declared(context: ExecutionContext): Declarations {
    const handler = context.getHandler();
    const owner = context.getClass();
    let byClass = this.declarations.get(handler);
    if (!byClass) this.declarations.set(handler, (byClass = new WeakMap()));
    let found = byClass.get(owner);
    if (!found) {
      const targets = [handler, owner];
      found = {
        open: this.options.publicControllers.includes(owner) || this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true,
        role: this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, targets),
        read: this.reflector.getAllAndOverride<boolean | undefined>(READ_OPERATION, targets) === true,
      };
      byClass.set(owner, found);
    }
    return found;
  }

  private isPublic(context: ExecutionContext): boolean {
    return this.declared(context).open;
  }

  /** The least role the operation needs, or null when anyone may run it. */
  private requiredRole(context: ExecutionContext, isGraphql: boolean, req: Request): Role | null {
    const declared = this.declared(context).role;
    if (declared) return declared;
    if (!this.isRead(context, isGraphql, req)) return 'editor';
    return this.config.publicRead ? null : 'viewer';
  }

  /** A query, a GET page, or an operation marked as changing nothing a person wrote. */
  private isRead(context: ExecutionContext, isGraphql: boolean, req: Request): boolean {
    return (
      this.declared(context).read ||
      (isGraphql
        ? GqlExecutionContext.create(context).getInfo<{ operation: { operation: string } }>().operation.operation === 'query'
        : READ_METHODS.has(req.method))
    );
  }
}

/** The synchroniser token: the form's `_csrf` field or the `x-csrf-token` header must match the session's. */
function checkCsrf(principal: Principal & { via: 'session' }, req: Request): void {
  const body = req.body as Record<string, unknown> | undefined;
  const sent = req.headers['x-csrf-token'] ?? body?._csrf;
  if (!sameCsrfToken(principal.csrfToken, sent)) {
    throw new AppError('FORBIDDEN', 'This form is missing its security token or carries another session\'s: reload the page and submit it again.', {
      reason: 'CSRF_TOKEN_MISMATCH',
    });
  }
}
