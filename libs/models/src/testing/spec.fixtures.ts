import type { ModelSpec, SourceSpec, StationSpec } from '../spec/model-spec.types';

/**
 * Small specs for the engine's own tests: closed-form cases (M/M/c, pure delays) and
 * block-by-block behaviours. Not used at run time.
 */
export function specWith(parts: Partial<ModelSpec> & { stations: StationSpec[]; sources: SourceSpec[] }): ModelSpec {
  return {
    schemaVersion: 1,
    slug: 'test-model',
    version: '1',
    title: 'Test model',
    description: 'A model used by the engine tests.',
    engine: { mode: 'des' },
    horizon: 1000,
    points: 100,
    parameters: [],
    probes: [{ key: 'first', metric: `${parts.stations[0].key}.concurrency`, label: 'Slots held' }],
    scenarios: [{ key: 'as-happened', title: 'Base', description: 'Base case.', actionableKey: null }],
    ...parts,
  };
}

/** M/M/c: Poisson arrivals at `lambda`, `c` servers with exponential service of rate `mu`. */
export function mmcSpec(lambda: number, mu: number, c: number, horizon: number): ModelSpec {
  return specWith({
    horizon,
    stations: [{ key: 'server', slots: c, service: { dist: 'exponential', mean: 1 / mu } }],
    sources: [{ key: 'arrivals', kind: 'open', target: 'server', rate: lambda }],
  });
}

/** Erlang C: probability that an arrival waits in M/M/c. */
export function erlangC(lambda: number, mu: number, c: number): number {
  const a = lambda / mu;
  const rho = a / c;
  let term = 1;
  let sum = 1;
  for (let k = 1; k < c; k++) {
    term *= a / k;
    sum += term;
  }
  const last = (term * a) / c / (1 - rho);
  return last / (sum + last);
}

/** Mean waiting time in the queue of M/M/c. */
export function mmcMeanWait(lambda: number, mu: number, c: number): number {
  return erlangC(lambda, mu, c) / (c * mu - lambda);
}
