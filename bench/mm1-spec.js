'use strict';
/** The M/M/1 queue at rho = 0.9 written as a model spec (shared by the model benches). */
exports.mm1Spec = (horizon) => ({
  schemaVersion: 1,
  slug: 'bench-mm1',
  version: '1',
  title: 'M/M/1 at rho = 0.9',
  description: 'Benchmark queue.',
  engine: { mode: 'des' },
  horizon,
  points: 100,
  parameters: [],
  stations: [{ key: 'server', slots: 1, service: { dist: 'exponential', mean: 1 } }],
  sources: [{ key: 'arrivals', kind: 'open', target: 'server', rate: 0.9 }],
  probes: [{ key: 'queue', metric: 'server.queue', label: 'Queue' }],
  scenarios: [{ key: 'as-happened', title: 'Base', description: 'Base.', actionableKey: null }],
});
