import type { ModelSpec } from '../spec/model-spec.types';
import { specWith } from '../testing/spec.fixtures';
import { runModel } from './model.engine';

/** Figures of a run by name. */
function figures(spec: ModelSpec, mode: 'des' | 'fluid', seed = 1, fluidStep?: number): Record<string, number> {
  const r = runModel({ spec, mode, seed, fluidStep, checks: false });
  return Object.fromEntries(r.summary.map((f) => [f.name, f.value ?? NaN]));
}

function close(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
}

describe('DES and fluid modes agree where both apply', () => {
  it('sessions held = connection rate × hold time (keep-alive)', () => {
    const spec = specWith({
      horizon: 1000,
      stations: [{ key: 'lb', slots: null, service: { dist: 'exponential', mean: 0.05 }, linger: 5 }],
      sources: [{ key: 'conns', kind: 'open', target: 'lb', rate: 200 }],
      figures: [{ name: 'sessions', label: 's', unit: 'sessions', measure: { metric: 'lb.concurrency', stat: 'mean', from: 100 } }],
    });
    const des = figures(spec, 'des').sessions;
    const fluid = figures(spec, 'fluid').sessions;
    expect(fluid).toBeCloseTo(200 * 5.05, 6);
    expect(close(des, fluid, 0.02)).toBe(true);
  });

  it.each([
    ['slot regime (a station making calls)', true],
    ['rate regime (short service, no calls)', false],
  ])('an overloaded station serves at its capacity: %s', (_name, withCall) => {
    const spec = specWith({
      horizon: 600,
      stations: [
        {
          key: 'server',
          slots: 10,
          queue: { limit: 200 },
          service: { dist: 'exponential', mean: withCall ? 0.2 : 0.04 },
          calls: withCall ? [{ to: 'cache' }] : [],
        },
        { key: 'cache', slots: null, service: 0 },
      ],
      sources: [{ key: 'load', kind: 'open', target: 'server', rate: withCall ? 80 : 400 }],
      figures: [
        { name: 'served', label: 'served', unit: 'req/s', measure: { metric: 'server.throughput', stat: 'mean', from: 60 } },
        { name: 'shed', label: 'shed', unit: 'req/s', measure: { metric: 'server.rejected', stat: 'mean', from: 60 } },
      ],
    });
    const capacity = withCall ? 10 / 0.2 : 10 / 0.04;
    const des = figures(spec, 'des', 3);
    const fluid = figures(spec, 'fluid', 3, 0.05);
    expect(close(fluid.served, capacity, 0.02)).toBe(true);
    expect(close(des.served, capacity, 0.03)).toBe(true);
    expect(close(des.shed, fluid.shed, 0.1)).toBe(true);
  });

  it('a feedback loop grows at the same rate until it saturates', () => {
    // Every completion emits two new events after 1 s; capacity 100 / 0.2 = 500 events/s.
    const spec = specWith({
      horizon: 30,
      stations: [
        {
          key: 'handler',
          slots: 100,
          queue: { limit: 5000 },
          service: { dist: 'exponential', mean: 0.2 },
          emits: [
            { to: 'handler', delay: 1 },
            { to: 'handler', delay: 1 },
          ],
        },
      ],
      sources: [{ key: 'seed', kind: 'open', target: 'handler', trace: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] }],
      figures: [
        {
          name: 'growth',
          label: 'growth',
          unit: '1/s',
          measures: {
            early: { metric: 'handler.throughput', stat: 'integral', from: 2, to: 3 },
            later: { metric: 'handler.throughput', stat: 'integral', from: 5, to: 6 },
          },
          value: 'ln(later / early) / 3',
        },
        { name: 'saturated', label: 'served', unit: 'req/s', measure: { metric: 'handler.throughput', stat: 'mean', from: 18 } },
      ],
    });
    const des = figures(spec, 'des', 5);
    const fluid = figures(spec, 'fluid', 5, 0.05);
    // Two offspring per generation of about 1.2 s: growth rate close to ln 2 / 1.2 ≈ 0.58 / s.
    // The DES count in a one-second window is a few dozen events: ~20 % sampling spread.
    expect(close(fluid.growth, Math.log(2) / 1.2, 0.12)).toBe(true);
    expect(close(des.growth, fluid.growth, 0.2)).toBe(true);
    expect(close(des.saturated, 500, 0.03)).toBe(true);
    expect(close(fluid.saturated, 500, 0.02)).toBe(true);
  });

  it('a flushed cache refills along the same curve', () => {
    const spec = specWith({
      horizon: 900,
      caches: [{ key: 'cache', nodes: 10, keysPerNode: 2000, hitCeiling: 1 }],
      stations: [
        { key: 'app', slots: null, service: 0.001, lookaside: { cache: 'cache', keys: 2, onMiss: { to: 'db' } } },
        { key: 'db', slots: null, service: 0.01 },
      ],
      sources: [{ key: 'reads', kind: 'open', target: 'app', rate: 100 }],
      events: [{ key: 'flush', at: 100, kind: 'cacheFlush', cache: 'cache', fraction: 0.5, label: 'Half the nodes flushed' }],
      figures: [
        { name: 'after', label: 'hit', unit: 'ratio', measure: { metric: 'cache.hitRatio', stat: 'mean', from: 100, to: 130 } },
        { name: 'mid', label: 'hit', unit: 'ratio', measure: { metric: 'cache.hitRatio', stat: 'mean', from: 250, to: 300 } },
        { name: 'late', label: 'hit', unit: 'ratio', measure: { metric: 'cache.hitRatio', stat: 'mean', from: 700 } },
      ],
    });
    const des = figures(spec, 'des', 2);
    const fluid = figures(spec, 'fluid', 2);
    expect(fluid.after).toBeLessThan(0.6);
    expect(fluid.late).toBeGreaterThan(0.97);
    for (const k of ['after', 'mid', 'late']) expect(Math.abs(des[k] - fluid[k])).toBeLessThan(0.03);
  });
});
