import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { principalKey } from '@hindsight/tracking';
import { principalOf } from '../../auth/request-principal';
import { RateLimits } from '../../limits/rate-limits.service';
import { BOUNDARY_FIELD, PARAMETER_PREFIX, SEEDS_FIELD, SWEEP_FIELD } from './what-if-form.parser';

/**
 * A page or panel request carrying what-if values, an ensemble (`seeds`), a sweep or a boundary search re-runs the model: it counts as a model run
 * against the reader's token and address, like `runModel`. Runs with the default values are
 * stored and shared, so plain page views are not counted. A refusal is TOO_MANY_REQUESTS
 * (a 429 page with Retry-After). Runs after the auth guard, which has resolved the caller.
 */
@Injectable()
export class WhatIfRateLimitGuard implements CanActivate {
  constructor(private readonly rateLimits: RateLimits) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const fields = { ...(req.query as Record<string, unknown>), ...((req.body as Record<string, unknown> | undefined) ?? {}) };
    if (!Object.keys(fields).some((name) => name.startsWith(PARAMETER_PREFIX) || name === SEEDS_FIELD || name === SWEEP_FIELD || name === BOUNDARY_FIELD)) return true;
    const principal = await principalOf(req);
    await this.rateLimits.consume('modelRuns', { tokenId: principal ? principalKey(principal) : null, address: req.ip ?? req.socket.remoteAddress ?? 'unknown' });
    return true;
  }
}
