/**
 * Retries share one budget per minute, so a tracker that is down is not hammered by every sync at
 * once: each call gets its first try, and a retry only while the budget lasts.
 */
export class RetryBudget {
  private windowStart = Date.now();
  private used = 0;

  constructor(private readonly perMinute: number) {}

  take(): boolean {
    const now = Date.now();
    if (now - this.windowStart >= 60_000) {
      this.windowStart = now;
      this.used = 0;
    }
    if (this.used >= this.perMinute) return false;
    this.used += 1;
    return true;
  }

  /** Runs `call`, retrying failures the budget allows (after 200 ms, then 400 ms …, at most twice). */
  async run<T>(call: () => Promise<T>, retryable: (error: unknown) => boolean): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (attempt >= 2 || !retryable(error) || !this.take()) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
      }
    }
  }
}
