import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';

/** A bearer token that looks like one (its shape only: checking it would cost a query). */
const BEARER = /^Bearer\s+([A-Za-z0-9._~+/=-]{16,512})\s*$/i;

/**
 * Blocks a client whose requests keep being refused (QUERY_TOO_COMPLEX, UNAUTHENTICATED, a body
 * too large) for RATE_LIMIT_PENALTY_SECONDS once it has had RATE_LIMIT_REFUSALS_PER_CLIENT
 * refusals in a window. While blocked its requests are answered 429 by {@link penaltyBoxMiddleware}
 * before their bodies are read, so a flood of oversized requests costs the event loop almost
 * nothing (rate-limiter-flexible's blockDuration, in this process's memory).
 */
@Injectable()
export class PenaltyBox {
  private readonly limiter: RateLimiterMemory | null;
  private readonly penaltySeconds: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { refusalsPerClient, penaltySeconds, windowSeconds } = config.rateLimits;
    this.penaltySeconds = penaltySeconds;
    this.limiter =
      refusalsPerClient > 0 && penaltySeconds > 0
        ? new RateLimiterMemory({ keyPrefix: 'refusals', points: refusalsPerClient, duration: windowSeconds, blockDuration: penaltySeconds })
        : null;
  }

  /** Counts one refusal against the request's client, blocking it at the limit's count. */
  async strike(req: Request): Promise<void> {
    const limiter = this.limiter;
    if (!limiter) return;
    const key = clientKey(req);
    const counted = await limiter.consume(key).catch((error: unknown) => {
      if (error instanceof RateLimiterRes) return error;
      throw error;
    });
    if (counted.remainingPoints <= 0) await limiter.block(key, this.penaltySeconds);
  }

  /** Seconds the request's client stays blocked, or 0 when it is not. */
  async blockedFor(req: Request): Promise<number> {
    if (!this.limiter) return 0;
    const state = await this.limiter.get(clientKey(req));
    if (!state || state.consumedPoints <= this.limiter.points) return 0;
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  }
}

/** The token (hashed) when the request carries a valid-looking one, else the client address. */
export function clientKey(req: Request): string {
  const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
  if (token) return `token:${createHash('sha256').update(token).digest('base64url')}`;
  return `address:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
}

/**
 * Ahead of the body parsers: answers a blocked client 429 with Retry-After and closes the
 * connection without reading the upload; counts a 401 or 413 answer as a refusal.
 */
export function penaltyBoxMiddleware(box: PenaltyBox) {
  return (req: Request, res: Response, next: NextFunction) => {
    // Probes and metrics stay open, as under load shedding: they are how an operator sees it.
    if (/^\/(health|metrics)(\/|$)/.test(req.path)) {
      next();
      return;
    }
    box.blockedFor(req).then(
      (retryAfterSeconds) => {
        if (retryAfterSeconds === 0) {
          res.on('finish', () => {
            if (res.statusCode === 401 || res.statusCode === 413) void box.strike(req);
          });
          next();
          return;
        }
        res.on('finish', () => req.destroy());
        res
          .status(429)
          .setHeader('Retry-After', String(retryAfterSeconds))
          .setHeader('Connection', 'close')
          .json({
            code: 'TOO_MANY_REQUESTS',
            message: `Too many refused requests from this client: blocked for ${retryAfterSeconds} s more.`,
            retryAfterSeconds,
          });
      },
      (error: unknown) => next(error),
    );
  };
}
