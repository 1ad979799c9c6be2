import type { ModelRunsService } from '@hindsight/model-runs';

/** The incident the test model is attached to (a seeded one). */
export const QUEUE_MODEL_INCIDENT = 'slack-cache-metastability-2022';

/**
 * A single queue (Poisson arrivals at `rate`, one exponential server of rate 1) whose run length
 * is set by `horizon`: about 2 × rate × horizon simulated events. `rate` is a parameter, so each
 * value is a new what-if (new inputs, a new stored run).
 */
export function queueModelSpec(horizon: number, version = '1') {
  return {
    schemaVersion: 1,
    slug: 'test-single-queue',
    version,
    title: 'One queue',
    description: 'Arrivals at a single server, for tests of how runs are executed.',
    engine: { mode: 'des' },
    horizon,
    points: 50,
    parameters: [{ name: 'rate', unit: '/s', default: 0.9, min: 0.01, max: 1000, description: 'Arrival rate.' }],
    probes: [{ key: 'busy', metric: 'server.concurrency', label: 'Busy slots' }],
    scenarios: [{ key: 'as-happened', title: 'Base', description: 'Base case.', actionableKey: null }],
    stations: [{ key: 'server', slots: 1, service: { dist: 'exponential', mean: 1 } }],
    sources: [{ key: 'arrivals', kind: 'open', target: 'server', rate: { param: 'rate' } }],
  };
}

/** Stores the spec and attaches it to the test incident; returns that incident's model view. */
export async function attachQueueModel(models: ModelRunsService, horizon: number, version = '1') {
  const spec = await models.createSpec(queueModelSpec(horizon, version));
  return models.attach(QUEUE_MODEL_INCIDENT, spec.key, spec.version);
}
