import { ModelErrorCode, ModelRunError, ModelSpecError } from '../errors/model.error';
import type { ModelSpec } from '../spec/model-spec.types';
import { validateSpec } from '../spec/model-spec.validator';
import { mmcMeanWait, erlangC, specWith } from '../testing/spec.fixtures';
import { runModel } from './model.engine';

const figuresOf = (r: ReturnType<typeof runModel>): Record<string, number> => Object.fromEntries(r.summary.map((f) => [f.name, f.value ?? NaN]));

describe('mode and event budget per scenario', () => {
  const spec = (): ModelSpec =>
    specWith({
      horizon: 200,
      stations: [{ key: 'server', slots: 4, service: { dist: 'exponential', mean: 0.1 } }],
      sources: [{ key: 'load', kind: 'open', target: 'server', rate: 20 }],
      scenarios: [
        { key: 'as-happened', title: 'Base', description: 'DES.', actionableKey: null },
        { key: 'coarse', title: 'Fluid', description: 'The same in fluid mode.', actionableKey: null, engine: { mode: 'fluid', fluidStep: 0.5 } },
        { key: 'tight', title: 'Small budget', description: 'Too few events.', actionableKey: null, engine: { maxEvents: 500 } },
      ],
    });

  it('a scenario runs in its own mode and step unless the run forces one', () => {
    expect(runModel({ spec: spec() }).mode).toBe('des');
    const coarse = runModel({ spec: spec(), scenarioKey: 'coarse' });
    expect([coarse.mode, coarse.fluidStep]).toEqual(['fluid', 0.5]);
    const forced = runModel({ spec: spec(), scenarioKey: 'coarse', mode: 'des' });
    expect(forced.mode).toBe('des');
    expect(forced.inputHash).not.toBe(coarse.inputHash);
  });

  it("a scenario's event budget ends its run; the caller's budget is a ceiling over it", () => {
    const error = (() => {
      try {
        runModel({ spec: spec(), scenarioKey: 'tight' });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ModelRunError);
    expect((error as ModelRunError).code).toBe(ModelErrorCode.EventBudgetExceeded);
    expect((error as Error).message).toContain('more than 500 events');
    expect(() => runModel({ spec: spec(), budget: { maxEvents: 100 } })).toThrow('more than 100 events');
  });

  it('validates the scenario engine block with paths', () => {
    const s = spec();
    (s.scenarios[1].engine as Record<string, unknown>).mode = 'exact';
    (s.scenarios[2].engine as Record<string, unknown>).maxEvents = 2e9;
    try {
      validateSpec(s);
      throw new Error('accepted');
    } catch (e) {
      const issues = (e as ModelSpecError).issues;
      expect(issues).toContainEqual({ path: 'scenarios[1].engine.mode', reason: 'expected one of "des", "fluid", got "exact"' });
      expect(issues).toContainEqual({ path: 'scenarios[2].engine.maxEvents', reason: 'expected a positive integer <= 1000000000 (engine limit), got 2000000000' });
    }
  });
});

describe('exclusive branch: one of these calls with probabilities p1..pn', () => {
  const spec = (): ModelSpec =>
    specWith({
      horizon: 2000,
      stations: [
        {
          key: 'router',
          slots: null,
          service: 0,
          calls: [
            {
              oneOf: [
                { to: 'a', probability: 0.2 },
                { to: 'b', probability: 0.5 },
              ],
            },
            { to: 'after' },
          ],
        },
        { key: 'a', slots: null, service: 0.01 },
        { key: 'b', slots: null, service: 0.01 },
        { key: 'after', slots: null, service: 0.01 },
      ],
      sources: [{ key: 'load', kind: 'open', target: 'router', rate: 50 }],
      figures: [
        { name: 'a', label: 'a', unit: 'req/s', measure: { metric: 'a.offered', stat: 'mean' } },
        { name: 'b', label: 'b', unit: 'req/s', measure: { metric: 'b.offered', stat: 'mean' } },
        { name: 'after', label: 'after', unit: 'req/s', measure: { metric: 'after.offered', stat: 'mean' } },
        { name: 'to-a', label: 'attempts to a', unit: 'req/s', measure: { metric: 'router->a.attempts', stat: 'mean' } },
      ],
    });

  it.each(['des', 'fluid'] as const)('splits visits 20 / 50 / 30 (none), then continues with the next call (%s)', (mode) => {
    const f = figuresOf(runModel({ spec: spec(), mode }));
    const tol = mode === 'des' ? 0.05 : 1e-6;
    expect(Math.abs(f.a / 50 - 0.2)).toBeLessThan(tol);
    expect(Math.abs(f.b / 50 - 0.5)).toBeLessThan(tol);
    expect(Math.abs(f['to-a'] - f.a)).toBeLessThan(1e-9);
    // Every visit reaches the next step whichever branch it took.
    expect(Math.abs(f.after / 50 - 1)).toBeLessThan(mode === 'des' ? 0.02 : 1e-6);
  });

  it('rejects branch shares adding up to more than 1, and branches without a probability', () => {
    const s = spec();
    const step = s.stations[0].calls?.[0] as { oneOf: Array<{ to: string; probability?: number }> };
    step.oneOf[1].probability = 0.9;
    step.oneOf.push({ to: 'after' });
    try {
      validateSpec(s);
      throw new Error('accepted');
    } catch (e) {
      const issues = (e as ModelSpecError).issues;
      expect(issues).toContainEqual({ path: 'stations[0].calls[0].oneOf', reason: 'expected branch probabilities adding up to at most 1, got 1.1 with the default parameters' });
      expect(issues).toContainEqual({ path: 'stations[0].calls[0].oneOf[2].probability', reason: 'expected the share of visits taking this branch, got nothing' });
    }
  });
});

describe('wait-distribution metrics', () => {
  // M/M/2 at rho = 0.75: P(wait) is Erlang C; the wait given waiting is exponential with rate
  // c mu - lambda, so its quantile q is -ln((1 - q) / C) / (c mu - lambda) when q > 1 - C.
  const lambda = 1.5;
  const mu = 1;
  const c = 2;
  const spec = specWith({
    horizon: 200_000,
    stations: [{ key: 'server', slots: c, service: { dist: 'exponential', mean: 1 / mu } }],
    sources: [{ key: 'arrivals', kind: 'open', target: 'server', rate: lambda }],
    probes: [{ key: 'p95', metric: 'server.wait.p95', label: 'p95 wait' }],
    figures: [
      { name: 'waited', label: 'share that waited', unit: 'ratio', measure: { metric: 'server.waitedRatio', stat: 'mean' } },
      { name: 'mean-wait', label: 'mean wait', unit: 's', measure: { metric: 'server.wait', stat: 'mean' } },
      { name: 'p90-wait', label: 'p90 wait', unit: 's', measure: { metric: 'server.wait', stat: 'p90' } },
      { name: 'p99-wait', label: 'p99 wait', unit: 's', measure: { metric: 'server.wait.p99', stat: 'mean' } },
      { name: 'p50-response', label: 'median response', unit: 's', measure: { metric: 'server.latency', stat: 'p50' } },
    ],
  });
  const f = figuresOf(runModel({ spec, seed: 7 }));
  const C = erlangC(lambda, mu, c);
  const quantile = (q: number): number => -Math.log((1 - q) / C) / (c * mu - lambda);

  it('the share of arrivals that waited is Erlang C', () => {
    expect(Math.abs(f.waited - C) / C).toBeLessThan(0.03);
    expect(Math.abs(f['mean-wait'] - mmcMeanWait(lambda, mu, c)) / mmcMeanWait(lambda, mu, c)).toBeLessThan(0.05);
  });

  it('wait percentiles match the closed form (within the histogram bin width, ~10 %)', () => {
    expect(Math.abs(f['p90-wait'] - quantile(0.9)) / quantile(0.9)).toBeLessThan(0.1);
    expect(Math.abs(f['p99-wait'] - quantile(0.99)) / quantile(0.99)).toBeLessThan(0.1);
  });

  it('response-time percentiles come from the same histograms (latency.pNN)', () => {
    // The response time of M/M/c: at least one service time; its median exceeds ln 2 / mu.
    expect(f['p50-response']).toBeGreaterThan(Math.log(2) / mu);
    expect(f['p50-response']).toBeLessThan(Math.log(2) / mu + quantile(0.9));
  });
});

describe('threshold statistics read a moving window', () => {
  // A DES queue at rho = 0.95 whose load halves at t = 500: the mean queue falls below 5 soon
  // after, but single fine windows of a DES run dip below 5 long before.
  const spec = (window?: number): ModelSpec =>
    specWith({
      horizon: 1000,
      points: 100,
      stations: [{ key: 'server', slots: 1, service: { dist: 'exponential', mean: 1 } }],
      sources: [{ key: 'load', kind: 'open', target: 'server', rate: 0.95 }],
      events: [{ key: 'relief', at: 500, label: 'Load halves', kind: 'scaleSource', source: 'load', factor: 0.5 }],
      figures: [{ name: 'below', label: 'below', unit: 's', measure: { metric: 'server.queue', stat: 'firstTimeBelow', threshold: 0.5, from: 100, window } }],
    });

  it('a longer window ignores short dips; the default is one output point', () => {
    const narrow = figuresOf(runModel({ spec: spec(1.25), seed: 3 })).below;
    const point = figuresOf(runModel({ spec: spec(10), seed: 3 })).below;
    const byDefault = figuresOf(runModel({ spec: spec(), seed: 3 })).below;
    const wide = figuresOf(runModel({ spec: spec(100), seed: 3 })).below;
    expect(byDefault).toBe(point);
    expect(narrow).toBeLessThan(500);
    expect(wide).toBeGreaterThan(500);
    expect(wide).toBeGreaterThanOrEqual(point);
  });

  it('only firstTime* statistics take a window', () => {
    const s = spec(5);
    (s.figures as NonNullable<ModelSpec['figures']>)[0].measure = { metric: 'server.queue', stat: 'mean', window: 5 };
    expect(() => validateSpec(s)).toThrow('figures[0].measure.window: only firstTimeAbove and firstTimeBelow take a window');
  });
});

describe('edge timeouts are booked when they fire', () => {
  it.each(['des', 'fluid'] as const)('a 5 s timeout on calls sent over [10, 20) s shows over [15, 25) s (%s)', (mode) => {
    const spec = specWith({
      horizon: 40,
      points: 40,
      stations: [
        { key: 'front', slots: null, service: 0, calls: [{ to: 'remote', policy: { timeout: 5 } }] },
        { key: 'remote', slots: null, service: 0.01 },
      ],
      sources: [{ key: 'load', kind: 'open', target: 'front', arrivals: 'constant', rate: 10 }],
      events: [
        { key: 'down', at: 10, label: 'Remote hangs', kind: 'blackhole', station: 'remote' },
        { key: 'stop', at: 20, label: 'Load stops', kind: 'scaleSource', source: 'load', factor: 0 },
      ],
      figures: [
        { name: 'early', label: 'timeouts 10-14.5 s', unit: 'req', measure: { metric: 'front->remote.timeouts', stat: 'integral', from: 10, to: 14.5 } },
        { name: 'late', label: 'timeouts 14.5-25.5 s', unit: 'req', measure: { metric: 'front->remote.timeouts', stat: 'integral', from: 14.5, to: 25.5 } },
        { name: 'first', label: 'first timeout', unit: 's', measure: { metric: 'front->remote.timeouts', stat: 'firstTimeAbove', threshold: 0.5, window: 1 } },
      ],
    });
    const f = figuresOf(runModel({ spec, mode, fluidStep: 0.1 }));
    expect(f.early).toBeCloseTo(0, 6);
    expect(Math.abs(f.late - 100)).toBeLessThan(2);
    expect(f.first).toBeGreaterThanOrEqual(14.5);
    expect(f.first).toBeLessThan(16.5);
  });
});

describe('a timeout ratio is a share of the attempts that ended', () => {
  // 100 requests/s until t = 20, then 1/s; the remote stops answering at t = 10 and every
  // attempt from then on times out 5 s later. Over [20, 25) s the timeouts of the heavier
  // load fire while 1 attempt/s starts: a ratio over attempts started would read 100 there.
  const spec = (where: 'source' | 'edge'): ModelSpec => {
    const remote = { key: 'remote', slots: null, service: 0.01 };
    const metric = where === 'source' ? 'load.timeoutRatio' : 'front->remote.timeoutRatio';
    return specWith({
      horizon: 40,
      points: 40,
      stations: where === 'source' ? [remote] : [{ key: 'front', slots: null, service: 0, calls: [{ to: 'remote', policy: { timeout: 5 } }] }, remote],
      sources: [
        {
          key: 'load',
          kind: 'open',
          target: where === 'source' ? 'remote' : 'front',
          arrivals: 'constant',
          profile: [
            { at: 0, rate: 100 },
            { at: 20, rate: 1 },
          ],
          ...(where === 'source' ? { policy: { timeout: 5 } } : {}),
        },
      ],
      events: [{ key: 'down', at: 10, label: 'Remote hangs', kind: 'blackhole', station: 'remote' }],
      probes: [{ key: 'ratio', metric, label: 'Timed out' }],
      figures: [{ name: 'share', label: 'share over the run', unit: 'ratio', measure: { metric, stat: 'mean' } }],
    });
  };

  it.each([
    ['source', 'des'],
    ['source', 'fluid'],
    ['edge', 'des'],
    ['edge', 'fluid'],
  ] as const)("a %s's timeoutRatio never exceeds 1 and equals the share that timed out (%s)", (where, mode) => {
    const run = runModel({ spec: spec(where), mode, fluidStep: 0.1 });
    const ratio = (run.series.find((x) => x.key === 'ratio')?.values ?? []).map((v) => v ?? NaN);
    expect(Math.max(...ratio.filter((v) => !Number.isNaN(v)))).toBeLessThanOrEqual(1);
    // Every attempt answered until t = 10; from t = 15 on, every attempt that ends timed out.
    expect(Math.max(...ratio.slice(0, 10))).toBe(0);
    const late = ratio.slice(15).filter((v) => !Number.isNaN(v));
    expect(late.length).toBeGreaterThanOrEqual(24);
    for (const v of late) expect(v).toBeCloseTo(1, 9);
    // 1,000 attempts answered before the remote hung; 1,000 + 15 timed out by t = 40.
    expect(Math.abs((figuresOf(run).share as number) - 1015 / 2015)).toBeLessThan(0.005);
  });
});

describe('amplification is counted per user action', () => {
  it.each(['des', 'fluid'] as const)('client retries and emitted events count; the user request counts once (%s)', (mode) => {
    // Each user request is tried 3 times (2 retries) against a front that always fails, and
    // every front completion emits one event to a worker.
    const spec = specWith({
      horizon: 100,
      stations: [
        { key: 'front', slots: null, service: 0.001, errorRate: 1, errorStatus: 503, emits: [{ to: 'worker', on: 'any' }] },
        { key: 'worker', slots: null, service: 0.001 },
      ],
      sources: [{ key: 'users', kind: 'open', target: 'front', trace: [1, 2, 3, 4, 5], policy: { retries: 2 } }],
      figures: [
        { name: 'front', label: 'front per action', unit: '×', measure: { metric: 'front.amplification', stat: 'mean' } },
        { name: 'worker', label: 'worker per action', unit: '×', measure: { metric: 'worker.amplification', stat: 'mean' } },
      ],
    });
    const f = figuresOf(runModel({ spec, mode, fluidStep: 0.01 }));
    expect(f.front).toBeCloseTo(3, 6);
    expect(f.worker).toBeCloseTo(3, 6);
  });
});
