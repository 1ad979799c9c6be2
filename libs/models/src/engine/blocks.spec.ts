import { ModelErrorCode, ModelRunError } from '../errors/model.error';
import type { ModelSpec, StationSpec } from '../spec/model-spec.types';
import { specWith } from '../testing/spec.fixtures';
import { runModel } from './model.engine';

function figures(spec: ModelSpec, mode: 'des' | 'fluid' = 'des', seed = 1): Record<string, number> {
  const r = runModel({ spec, mode, seed, checks: false });
  return Object.fromEntries(r.summary.map((f) => [f.name, f.value ?? NaN]));
}

const mean = (name: string, metric: string, from = 0, to?: number) => ({
  name,
  label: name,
  unit: 'x',
  measure: { metric, stat: 'mean' as const, from, ...(to === undefined ? {} : { to }) },
});
const total = (name: string, metric: string, from = 0, to?: number) => ({
  name,
  label: name,
  unit: 'x',
  measure: { metric, stat: 'integral' as const, from, ...(to === undefined ? {} : { to }) },
});

describe('building blocks', () => {
  it('closed users: throughput = users / (think time + response time)', () => {
    const spec = specWith({
      horizon: 3000,
      stations: [{ key: 'app', slots: null, service: { dist: 'exponential', mean: 0.5 } }],
      sources: [{ key: 'users', kind: 'closed', target: 'app', users: 50, thinkTime: { dist: 'exponential', mean: 4.5 } }],
      figures: [mean('x', 'users.success', 100)],
    });
    expect(figures(spec).x).toBeCloseTo(50 / 5, 0);
    expect(figures(spec, 'fluid').x).toBeCloseTo(10, 1);
  });

  it('a throttle admits its share and rejects the rest with 429', () => {
    const spec = specWith({
      horizon: 2000,
      stations: [{ key: 'front', slots: null, service: 0.01, admit: 0.3 }],
      sources: [{ key: 'clients', kind: 'open', target: 'front', rate: 20 }],
      figures: [mean('ok', 'clients.successRatio'), mean('rejected', 'front.rejected')],
    });
    const f = figures(spec);
    expect(f.ok).toBeGreaterThan(0.27);
    expect(f.ok).toBeLessThan(0.33);
    expect(figures(spec, 'fluid').rejected).toBeCloseTo(14, 6);
  });

  it('error mapping turns a non-retryable 400 into a 500 the next caller up retries', () => {
    // edge → api → dep; dep always answers 400. Retries are decided on the status a caller
    // receives; the map rewrites the status api reports upward.
    const spec = (map: boolean): ModelSpec =>
      specWith({
        horizon: 100,
        stations: [
          { key: 'edge', slots: null, calls: [{ to: 'api', policy: { retries: 1 } }] },
          { key: 'api', slots: null, calls: [{ to: 'dep', policy: { retries: 3 }, ...(map ? { errorMap: { '400': 500 } } : {}) }] },
          { key: 'dep', slots: null, service: 0.01, errorRate: 1, errorStatus: 400 },
        ],
        sources: [{ key: 'req', kind: 'open', target: 'edge', trace: [1, 2, 3] }],
        figures: [total('dep-calls', 'dep.offered')],
      });
    for (const mode of ['des', 'fluid'] as const) {
      // api never retries a 400; without the map the 400 reaches edge, which does not retry either.
      expect(figures(spec(false), mode)['dep-calls']).toBeCloseTo(3, 9);
      // With the map edge receives a 500 and retries once: two api visits per request.
      expect(figures(spec(true), mode)['dep-calls']).toBeCloseTo(6, 9);
    }
  });

  it('a retry budget caps retries to a share of first attempts', () => {
    const spec = specWith({
      horizon: 500,
      stations: [
        { key: 'api', slots: null, calls: [{ to: 'dep', policy: { retries: 5, retryBudget: { ratio: 0.1, burst: 5 } } }] },
        { key: 'dep', slots: null, service: 0.01, errorRate: 1 },
      ],
      sources: [{ key: 'req', kind: 'open', target: 'api', rate: 10 }],
      figures: [mean('retry-ratio', 'api->dep.retryRatio', 50)],
    });
    for (const mode of ['des', 'fluid'] as const) {
      const r = figures(spec, mode)['retry-ratio'];
      expect(r).toBeLessThan(0.1);
      expect(r).toBeGreaterThan(0.05);
    }
  });

  it('a client concurrency limit caps calls in flight; the rest wait', () => {
    const spec = specWith({
      horizon: 500,
      stations: [
        { key: 'api', slots: null, calls: [{ to: 'slow', policy: { concurrencyLimit: 5 } }] },
        { key: 'slow', slots: null, service: 1 },
      ],
      sources: [{ key: 'req', kind: 'open', target: 'api', rate: 4 }],
      figures: [{ name: 'peak', label: 'p', unit: 'x', measure: { metric: 'slow.concurrency', stat: 'max' } }, mean('served', 'slow.throughput', 50)],
    });
    const f = figures(spec);
    expect(f.peak).toBeLessThanOrEqual(5 + 1e-9);
    expect(f.served).toBeCloseTo(4, 0);
  });

  it('a timeout abandons the caller while the callee keeps working (throughput vs goodput)', () => {
    const spec = (queueLimit: number | undefined) =>
      specWith({
        horizon: 600,
        stations: [
          { key: 'api', slots: null, calls: [{ to: 'db', policy: { timeout: 1 } }] },
          { key: 'db', slots: 1, queue: { dropAbandoned: true, ...(queueLimit === undefined ? {} : { limit: queueLimit }) }, service: 0.2 },
        ],
        sources: [{ key: 'req', kind: 'open', target: 'api', rate: 8 }],
        figures: [mean('throughput', 'db.throughput', 100), mean('goodput', 'db.goodput', 100)],
      });
    // Offered 8/s to a 5/s server. With an unbounded FIFO queue the requests it reaches have
    // waited almost the whole timeout and time out during service: busy, yet little use.
    const fifo = figures(spec(undefined));
    expect(fifo.throughput).toBeGreaterThan(4.5);
    expect(fifo.goodput).toBeLessThan(0.5 * fifo.throughput);
    // A short queue sheds the excess at once and the work done is work someone waits for.
    const short = figures(spec(2));
    expect(short.goodput).toBeGreaterThan(4.5);
  });

  it('scatter to all replicas waits for every shard; fanOut one picks a single replica', () => {
    const spec = (fanOut: 'all' | 'one') =>
      specWith({
        horizon: 200,
        stations: [
          { key: 'app', slots: null, calls: [{ to: 'shard', fanOut }] },
          { key: 'shard', slots: null, replicas: 8, service: 0.01 },
        ],
        sources: [{ key: 'req', kind: 'open', target: 'app', rate: 5 }],
        figures: [total('shard-calls', 'shard.offered'), total('requests', 'req.offered')],
      });
    for (const mode of ['des', 'fluid'] as const) {
      const all = figures(spec('all'), mode);
      expect(all['shard-calls'] / all.requests).toBeCloseTo(8, 6);
      const one = figures(spec('one'), mode);
      expect(one['shard-calls'] / one.requests).toBeCloseTo(1, 6);
    }
  });

  it('sequential repeats multiply calls to the callee', () => {
    const spec = specWith({
      horizon: 100,
      stations: [
        { key: 'svc', slots: null, calls: [{ to: 'store', multiplicity: 10 }] },
        { key: 'store', slots: null, service: 0.005 },
      ],
      sources: [{ key: 'req', kind: 'open', target: 'svc', trace: [1, 2] }],
      figures: [total('reads', 'store.offered'), mean('latency', 'req.latency', 0)],
    });
    for (const mode of ['des', 'fluid'] as const) {
      const f = figures(spec, mode);
      expect(f.reads).toBeCloseTo(20, 9);
      expect(f.latency).toBeCloseTo(0.05, 6);
    }
  });

  it('an emit loop guard stops the chain at its depth', () => {
    const spec = specWith({
      horizon: 100,
      stations: [{ key: 'worker', slots: null, service: 0.1, emits: [{ to: 'worker', delay: 1, maxDepth: 3 }] }],
      sources: [{ key: 'event', kind: 'open', target: 'worker', trace: [0] }],
      figures: [total('handled', 'worker.offered')],
    });
    expect(figures(spec).handled).toBe(4);
    expect(figures(spec, 'fluid').handled).toBeCloseTo(4, 9);
  });

  it('the look-aside cache fills only when the miss read succeeds', () => {
    const spec = (dbFails: number) =>
      specWith({
        horizon: 600,
        caches: [{ key: 'cache', nodes: 4, keysPerNode: 500, initialWarm: 0 }],
        stations: [
          { key: 'app', slots: null, lookaside: { cache: 'cache', keys: 1, onMiss: { to: 'db' } } },
          { key: 'db', slots: null, service: 0.01, errorRate: dbFails },
        ],
        sources: [{ key: 'reads', kind: 'open', target: 'app', rate: 20 }],
        figures: [mean('hit', 'cache.hitRatio', 500)],
      });
    expect(figures(spec(0)).hit).toBeGreaterThan(0.9);
    expect(figures(spec(1)).hit).toBe(0);
  });

  it('a stopped station refuses work and fails what was in flight; a blackholed one hangs callers until their timeout', () => {
    const spec = specWith({
      horizon: 300,
      stations: [
        { key: 'api', slots: null, service: 0.01, calls: [{ to: 'remote', policy: { timeout: 2 } }] },
        { key: 'remote', slots: null, service: 0.05 },
      ],
      sources: [{ key: 'req', kind: 'open', target: 'api', rate: 10 }],
      events: [
        { key: 'hang', at: 100, kind: 'blackhole', station: 'remote', label: 'Remote hangs' },
        { key: 'back', at: 150, kind: 'restore', station: 'remote', label: 'Remote back' },
        { key: 'kill', at: 200, kind: 'stop', station: 'api', label: 'API stopped' },
      ],
      figures: [
        mean('ok-before', 'req.successRatio', 10, 100),
        mean('timeouts', 'req.successRatio', 105, 150),
        mean('ok-between', 'req.successRatio', 155, 200),
        mean('ok-after', 'req.successRatio', 205),
        mean('latency-hung', 'req.latency', 105, 150),
      ],
    });
    for (const mode of ['des', 'fluid'] as const) {
      const f = figures(spec, mode);
      expect(f['ok-before']).toBe(1);
      expect(f.timeouts).toBeLessThan(0.01);
      expect(f['ok-between']).toBeGreaterThan(0.99);
      expect(f['ok-after']).toBe(0);
    }
  });

  it('a capacity loss and a load spike change the queue as expected', () => {
    const spec = specWith({
      horizon: 400,
      stations: [{ key: 'svc', slots: 10, service: 1 }],
      sources: [{ key: 'req', kind: 'open', target: 'svc', rate: 5, arrivals: 'constant' }],
      events: [
        { key: 'loss', at: 100, kind: 'setSlots', station: 'svc', slots: 4, label: 'Capacity loss' },
        { key: 'spike', at: 200, kind: 'scaleSource', source: 'req', factor: 0.5, label: 'Load halves' },
        { key: 'back', at: 300, kind: 'setSlots', station: 'svc', slots: 10, label: 'Capacity back' },
      ],
      figures: [mean('q1', 'svc.queue', 50, 100), mean('growth', 'svc.queue', 150, 200), mean('q3', 'svc.queue', 350)],
    });
    for (const mode of ['des', 'fluid'] as const) {
      const f = figures(spec, mode);
      expect(f.q1).toBeLessThan(0.5);
      expect(f.growth).toBeGreaterThan(50);
      expect(f.q3).toBeLessThan(0.5);
    }
  });
});

describe('budgets', () => {
  const heavy = specWith({
    horizon: 1e9,
    stations: [{ key: 'server', slots: 1, service: { dist: 'exponential', mean: 1 } }],
    sources: [{ key: 'arrivals', kind: 'open', target: 'server', rate: 0.9 }],
  });

  it('a run that needs more events than its budget ends with EVENT_BUDGET_EXCEEDED', () => {
    expect(() => runModel({ spec: heavy, budget: { maxEvents: 5000 } })).toThrow(
      expect.objectContaining({ name: 'ModelRunError', code: ModelErrorCode.EventBudgetExceeded }),
    );
  });

  it('a run that overruns its wall time ends with WALL_TIME_EXCEEDED', () => {
    let error: unknown;
    try {
      runModel({ spec: heavy, budget: { maxWallMs: 20, maxEvents: Number.MAX_SAFE_INTEGER } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelRunError);
    expect((error as ModelRunError).code).toBe(ModelErrorCode.WallTimeExceeded);
  });
});
