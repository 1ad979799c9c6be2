import { runModel } from '../engine/model.engine';
import type { ModelSpec } from '../spec/model-spec.types';
import { runEnsemble } from './model.exploration';
import { adaptiveRunOne, MIN_PARALLEL_RUN_MS, parallelLanes } from './run-lanes';

const idleMachine = { cores: 8, loadAverage: 0 };

describe('parallelLanes: worker threads only when they can pay', () => {
  it('keeps short runs on the calling thread, however many cores are idle', () => {
    expect(parallelLanes({ firstRunMs: MIN_PARALLEL_RUN_MS - 1, remaining: 19, maxWorkers: 8, ...idleMachine })).toBe(0);
    expect(parallelLanes({ firstRunMs: 5, remaining: 199, maxWorkers: 8, ...idleMachine })).toBe(0);
  });

  it('uses threads for long runs, as many as idle cores, runs left and the caller allow', () => {
    expect(parallelLanes({ firstRunMs: MIN_PARALLEL_RUN_MS, remaining: 19, maxWorkers: 8, ...idleMachine })).toBe(8);
    expect(parallelLanes({ firstRunMs: 2_000, remaining: 19, maxWorkers: 2, ...idleMachine })).toBe(2);
    expect(parallelLanes({ firstRunMs: 2_000, remaining: 3, maxWorkers: 8, ...idleMachine })).toBe(3);
  });

  it('keeps to the calling thread when fewer than two cores are idle, or one run is left', () => {
    expect(parallelLanes({ firstRunMs: 2_000, remaining: 19, maxWorkers: 8, cores: 2, loadAverage: 0.6 })).toBe(0);
    expect(parallelLanes({ firstRunMs: 2_000, remaining: 19, maxWorkers: 8, cores: 2, loadAverage: 9.7 })).toBe(0);
    expect(parallelLanes({ firstRunMs: 2_000, remaining: 19, maxWorkers: 8, cores: 4, loadAverage: 1.5 })).toBe(2);
    expect(parallelLanes({ firstRunMs: 2_000, remaining: 1, maxWorkers: 8, ...idleMachine })).toBe(0);
  });
});

const spec: ModelSpec = {
  schemaVersion: 1,
  slug: 'lanes-queue',
  version: '1',
  title: 'A small queue',
  description: 'One station.',
  engine: { mode: 'des' },
  horizon: 50,
  points: 10,
  parameters: [],
  stations: [{ key: 'server', slots: 1, service: { dist: 'exponential', mean: 1 } }],
  sources: [{ key: 'arrivals', kind: 'open', target: 'server', rate: 0.8 }],
  probes: [{ key: 'queue', metric: 'server.queue', label: 'Queue' }],
  scenarios: [{ key: 'as-happened', title: 'Base', description: 'Base.', actionableKey: null }],
};

describe('adaptiveRunOne', () => {
  it('on a busy machine runs every seed on the calling thread, with the same result as runModel', async () => {
    const adaptive = adaptiveRunOne(5, 2, { cores: 2, loadAverage: 3 });
    try {
      expect(adaptive.lanes()).toBeNull();
      const e = await runEnsemble({ spec }, { seeds: 5 }, adaptive.runOne);
      expect(adaptive.lanes()).toBe(0);
      const direct = await runEnsemble({ spec }, { seeds: 5, concurrency: 1 }, async (x) => runModel(x));
      expect(JSON.stringify(e)).toBe(JSON.stringify(direct));
    } finally {
      await adaptive.close();
    }
  });
});
