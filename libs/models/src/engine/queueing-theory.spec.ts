import fs from 'node:fs';
import path from 'node:path';
import type { ModelRunResult } from '../output/model-run.types';
import type { ModelSpec } from '../spec/model-spec.types';
import { mmcMeanWait, mmcSpec, specWith } from '../testing/spec.fixtures';
import { runModel } from './model.engine';

const SEEDS = path.resolve(__dirname, '../../../../seeds/models');

function stationWait(r: ModelRunResult): number {
  return r.summary.find((f) => f.name === 'wait')?.value ?? NaN;
}

function withWaitFigure(spec: ModelSpec): ModelSpec {
  return { ...spec, figures: [{ name: 'wait', label: 'Mean wait', unit: 's', measure: { metric: 'server.wait', stat: 'mean' } }] };
}

describe('closed forms: M/M/1 and M/M/c waits against Erlang C', () => {
  // 250,000 arrivals at a fixed seed. The relative standard error of the mean wait, with the
  // autocorrelation of successive waits, is about 2 % at these loads; 6 % is ~3 sigma.
  it.each([
    ['M/M/1 at ρ = 0.7', 0.7, 1, 1],
    ['M/M/3 at ρ = 0.8', 2.4, 1, 3],
    ['M/M/8 at ρ = 0.85', 6.8, 1, 8],
  ])('%s', (_name, lambda, mu, c) => {
    const horizon = 250_000 / lambda;
    const r = runModel({ spec: withWaitFigure(mmcSpec(lambda, mu, c, horizon)), seed: 11 });
    const expected = mmcMeanWait(lambda, mu, c);
    expect(Math.abs(stationWait(r) - expected) / expected).toBeLessThan(0.06);
  });

  it('utilisation equals λ / (c μ)', () => {
    const spec = mmcSpec(2.4, 1, 3, 40_000);
    spec.figures = [{ name: 'u', label: 'u', unit: 'ratio', measure: { metric: 'server.utilisation', stat: 'mean' } }];
    const r = runModel({ spec, seed: 5 });
    expect(r.summary[0].value).toBeCloseTo(0.8, 1);
  });
});

describe("Little's law on every station", () => {
  const seedSpecs = fs
    .readdirSync(SEEDS)
    .filter((f) => f.endsWith('.model.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(SEEDS, f), 'utf8')) as ModelSpec);

  const runs: Array<[string, ModelRunResult]> = [
    ['M/M/3 (DES)', runModel({ spec: mmcSpec(2.4, 1, 3, 20_000), seed: 3 })],
    ['M/M/3 (fluid)', runModel({ spec: mmcSpec(2.4, 1, 3, 20_000), seed: 3, mode: 'fluid' })],
    ...seedSpecs.map((s): [string, ModelRunResult] => [s.slug, runModel({ spec: s, checks: false })]),
  ];

  it.each(runs)('%s: time in system = summed sojourns (L·T = Σ W, exactly)', (_name, r) => {
    expect(r.stats.stations.length).toBeGreaterThan(0);
    for (const st of r.stats.stations) {
      const scale = Math.max(1, st.timeInSystem);
      expect(Math.abs(st.timeInSystem - st.sojournTotal) / scale).toBeLessThan(1e-5);
    }
  });

  it('L = λW on a long stationary run (within 2 %)', () => {
    const [, r] = runs[0];
    const st = r.stats.stations[0];
    const lw = st.arrivalRate * st.meanSojourn;
    expect(Math.abs(st.meanInSystem - lw) / st.meanInSystem).toBeLessThan(0.02);
  });
});

describe('retry amplification across layers', () => {
  // Three layers each retrying twice (three attempts) over a leaf that always fails: every
  // request reaches the leaf 3^3 = 27 times.
  const layered = specWith({
    horizon: 100,
    stations: [
      { key: 'layer-1', slots: null, service: 0.001, calls: [{ to: 'layer-2', policy: { retries: 2 } }] },
      { key: 'layer-2', slots: null, service: 0.001, calls: [{ to: 'layer-3', policy: { retries: 2 } }] },
      { key: 'layer-3', slots: null, service: 0.001, calls: [{ to: 'leaf', policy: { retries: 2 } }] },
      { key: 'leaf', slots: null, service: 0.001, errorRate: 1, errorStatus: 503 },
    ],
    sources: [{ key: 'requests', kind: 'open', target: 'layer-1', trace: [1, 2, 3, 4, 5] }],
    figures: [
      { name: 'leaf', label: 'leaf arrivals', unit: 'req', measure: { metric: 'leaf.offered', stat: 'integral' } },
      { name: 'l3', label: 'layer 3 arrivals', unit: 'req', measure: { metric: 'layer-3.offered', stat: 'integral' } },
      { name: 'requests', label: 'requests', unit: 'req', measure: { metric: 'requests.offered', stat: 'integral' } },
    ],
  });

  it.each(['des', 'fluid'] as const)('multiplies as attempts^layers (%s)', (mode) => {
    const r = runModel({ spec: layered, mode, fluidStep: 0.01 });
    const f = Object.fromEntries(r.summary.map((x) => [x.name, x.value as number]));
    expect(f.requests).toBeCloseTo(5, 9);
    expect(f.l3 / f.requests).toBeCloseTo(9, 6);
    expect(f.leaf / f.requests).toBeCloseTo(27, 6);
  });
});
