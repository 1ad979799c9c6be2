import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '@hindsight/domain';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';

/** What a request is counted as: a write (any mutation but a model run), or a model run. */
export type RateLimitedWork = 'writes' | 'modelRuns';

/** Who is asking: the token's id when the request carries a valid one, and always the address. */
export interface RateLimitClient {
  tokenId: string | null;
  address: string;
}

const WORDS: Record<RateLimitedWork, string> = { writes: 'writes', modelRuns: 'model runs' };

/**
 * Fixed-window counters per API token and per client address, for writes and for model runs
 * (rate-limiter-flexible, in this process's memory: a restart forgets them, and each process of
 * a multi-process deployment counts on its own). A refusal is immediate: nothing waits in line.
 */
@Injectable()
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterMemory>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const { windowSeconds, writesPerToken, writesPerAddress, modelRunsPerToken, modelRunsPerAddress } = config.rateLimits;
    const limits: [string, number][] = [
      ['writes:token', writesPerToken],
      ['writes:address', writesPerAddress],
      ['modelRuns:token', modelRunsPerToken],
      ['modelRuns:address', modelRunsPerAddress],
    ];
    for (const [name, points] of limits) {
      if (points > 0) this.limiters.set(name, new RateLimiterMemory({ keyPrefix: name, points, duration: windowSeconds }));
    }
    const { signInsPerAddress, signInsPerAccount, signInWindowSeconds } = config.rateLimits;
    const signIns: [string, number][] = [
      ['signIns:address', signInsPerAddress],
      ['signIns:account', signInsPerAccount],
    ];
    for (const [name, points] of signIns) {
      if (points > 0) this.limiters.set(name, new RateLimiterMemory({ keyPrefix: name, points, duration: signInWindowSeconds }));
    }
  }

  /**
   * Counts one sign-in attempt against the client's address and the account name it tries,
   * whoever sends it (so guessing one person's password from many addresses is bounded too).
   * Throws TOO_MANY_REQUESTS with `retryAfterSeconds`.
   */
  async consumeSignIn(address: string, accountName: string): Promise<void> {
    const window = this.config.rateLimits.signInWindowSeconds;
    for (const [name, key, per] of [['signIns:address', address, 'address'], ['signIns:account', accountName.toLowerCase(), 'account']] as const) {
      const limiter = this.limiters.get(name);
      if (!limiter) continue;
      try {
        await limiter.consume(key);
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        const retryAfterSeconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
        throw new AppError('TOO_MANY_REQUESTS', `Too many sign-in attempts for this ${per}: at most ${limiter.points} per ${window} s. Retry after ${retryAfterSeconds} s.`, {
          retryAfterSeconds,
          limit: limiter.points,
          windowSeconds: window,
          per,
        });
      }
    }
  }

  /**
   * Counts `points` units of `work` for the client, or throws TOO_MANY_REQUESTS with the number
   * of seconds after which the client may try again (`retryAfterSeconds`).
   */
  async consume(work: RateLimitedWork, client: RateLimitClient, points = 1): Promise<void> {
    const keys: [string, string][] = [[`${work}:address`, client.address]];
    if (client.tokenId) keys.unshift([`${work}:token`, client.tokenId]);
    for (const [name, key] of keys) {
      const limiter = this.limiters.get(name);
      if (!limiter) continue;
      try {
        await limiter.consume(key, points);
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        const per = name.endsWith(':token') ? 'token' : 'address';
        const retryAfterSeconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
        throw new AppError(
          'TOO_MANY_REQUESTS',
          `Too many ${WORDS[work]} from this ${per}: at most ${limiter.points} per ${this.config.rateLimits.windowSeconds} s. Retry after ${retryAfterSeconds} s.`,
          { retryAfterSeconds, limit: limiter.points, windowSeconds: this.config.rateLimits.windowSeconds, per },
        );
      }
    }
  }
}
