/**
 * Rejects when `work` has not settled within `ms` (the work itself goes on; use it where the
 * caller must answer in time, like a probe or a scrape, and the work is bounded elsewhere).
 */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
