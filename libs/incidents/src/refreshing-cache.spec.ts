import { RefreshingCache } from './refreshing-cache';

describe('RefreshingCache', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000;
  });

  /** A load that counts its calls and resolves with the next value, or rejects when told to. */
  function loader() {
    let calls = 0;
    let fail = false;
    return {
      load: async () => {
        calls++;
        if (fail) throw new Error('database away');
        return `v${calls}`;
      },
      calls: () => calls,
      failNext: (f: boolean) => (fail = f),
    };
  }

  it('loads once for concurrent first reads, then serves the value until its time is up', async () => {
    const cache = new RefreshingCache<string, string>(60_000, { now });
    const l = loader();
    expect(await Promise.all([cache.get('k', l.load), cache.get('k', l.load)])).toEqual(['v1', 'v1']);
    clock += 59_999;
    expect(await cache.get('k', l.load)).toBe('v1');
    expect(l.calls()).toBe(1);
  });

  it('serves the stale value past its time while one refresh runs, then the fresh one', async () => {
    const cache = new RefreshingCache<string, string>(60_000, { now });
    const l = loader();
    await cache.get('k', l.load);
    clock += 60_000;
    // Both readers get the stale value at once; only one refresh starts.
    expect(await Promise.all([cache.get('k', l.load), cache.get('k', l.load)])).toEqual(['v1', 'v1']);
    await cache.settled('k');
    expect(l.calls()).toBe(2);
    expect(await cache.get('k', l.load)).toBe('v2');
    expect(l.calls()).toBe(2);
  });

  it('keeps the stale value when a refresh fails, reports it, and tries again only a period later', async () => {
    const failures: string[] = [];
    const cache = new RefreshingCache<string, string>(60_000, { now, onError: (key, error) => failures.push(`${key}: ${(error as Error).message}`) });
    const l = loader();
    await cache.get('k', l.load);
    clock += 60_000;
    l.failNext(true);
    expect(await cache.get('k', l.load)).toBe('v1');
    await cache.settled('k');
    expect(failures).toEqual(['k: database away']);
    // Within the period after the failure: the stale value, and no new attempt.
    clock += 59_999;
    expect(await cache.get('k', l.load)).toBe('v1');
    await cache.settled('k');
    expect(l.calls()).toBe(2);
    // A period later: one more attempt, which succeeds.
    l.failNext(false);
    clock += 1;
    expect(await cache.get('k', l.load)).toBe('v1');
    await cache.settled('k');
    expect(await cache.get('k', l.load)).toBe('v3');
    expect(l.calls()).toBe(3);
  });

  it('keeps keys apart, and a failed first load is not remembered', async () => {
    const cache = new RefreshingCache<string, string>(60_000, { now });
    const a = loader();
    const b = loader();
    b.failNext(true);
    await expect(cache.get('b', b.load)).rejects.toThrow('database away');
    expect(await cache.get('a', a.load)).toBe('v1');
    b.failNext(false);
    expect(await cache.get('b', b.load)).toBe('v2');
  });
});
