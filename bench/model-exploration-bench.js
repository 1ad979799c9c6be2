'use strict';
/*
 * Cost of seed ensembles, sweeps and boundary searches. Run from the project root:
 *
 *   node bench/model-exploration-bench.js
 *
 * Loads the TypeScript sources (scripts/register-ts.js). Bounded: fixed sizes, two rounds, each
 * run under the engine's own budgets. In one process run, alternating A B A B:
 *  - one as-happened run of Apache (DES) and of StackEgg (fluid) on the calling thread;
 *  - a 20-seed ensemble of each on the calling thread (A) and on 2 worker threads (B);
 *  - a 12-point sweep of StackEgg's keep-alive and a boundary search on it (2 worker threads);
 *  - long runs: an 8-seed ensemble of an M/M/1 queue of 1.5 million events per run
 *    (bench/mm1-spec.js), on the calling thread (A) and on 2 worker threads (B);
 *  - the default the CLI uses (runner/run-lanes.ts: the first run decides) on each ensemble,
 *    with the load average and the choice it made.
 * The machine has 2 cores shared with other work, so the worker-thread ratio is an upper bound of
 * what 2 threads give here, not a property of the engine.
 */
require('../scripts/register-ts');
const { performance } = require('node:perf_hooks');
const { runModel } = require('../libs/models/src/engine/model.engine.ts');
const { loadModelSpec } = require('../libs/models/src/cli/model-cli.ts');
const { runEnsemble, runSweep, findBoundary } = require('../libs/models/src/runner/model.exploration.ts');
const { ModelRunner } = require('../libs/models/src/runner/model.runner.ts');
const { adaptiveRunOne } = require('../libs/models/src/runner/run-lanes.ts');
const os = require('node:os');
const { mm1Spec } = require('./mm1-spec');

const SEEDS = 20;
const onThread = async (x) => runModel(x);

async function timed(fn) {
  const t = performance.now();
  const out = await fn();
  return { ms: performance.now() - t, out };
}

async function main() {
  const apache = loadModelSpec('apache-outbound-calls-without-timeouts-2011');
  const stackegg = loadModelSpec('stackegg-haproxy-session-cap-2015');
  const runner = new ModelRunner({ concurrency: 2, maxQueue: 64 });
  const inWorkers = (x) => runner.run(x);
  // Warm the workers (engine load) outside the measurements.
  await Promise.all([runner.run({ spec: apache, checks: false }), runner.run({ spec: apache, checks: false })]);
  const rows = [];
  try {
    for (let round = 1; round <= 2; round++) {
      for (const [name, spec] of [['apache', apache], ['stackegg', stackegg]]) {
        const one = await timed(async () => runModel({ spec }));
        const a = await timed(() => runEnsemble({ spec }, { seeds: SEEDS, concurrency: 1 }, onThread));
        const b = await timed(() => runEnsemble({ spec }, { seeds: SEEDS, concurrency: 2 }, inWorkers));
        rows.push({ round, model: name, oneRunMs: Math.round(one.ms), ensembleThreadMs: Math.round(a.ms), ensemble2WorkersMs: Math.round(b.ms), perRunMs: Math.round(a.ms / SEEDS), speedup: +(a.ms / b.ms).toFixed(2), failureProbability: a.out.failure && a.out.failure.probability });
      }
      {
        const spec = mm1Spec(750_000 / 0.9);
        const n = 8;
        const a = await timed(() => runEnsemble({ spec }, { seeds: n, concurrency: 1 }, onThread));
        const b = await timed(() => runEnsemble({ spec }, { seeds: n, concurrency: 2 }, inWorkers));
        rows.push({ round, model: `mm1 long runs (${n} seeds)`, perRunMs: Math.round(a.ms / n), ensembleThreadMs: Math.round(a.ms), ensemble2WorkersMs: Math.round(b.ms), speedup: +(a.ms / b.ms).toFixed(2), loadAverage: +os.loadavg()[0].toFixed(2) });
      }
      for (const [name, spec, n] of [['apache', apache, SEEDS], ['mm1 long runs', mm1Spec(750_000 / 0.9), 8]]) {
        const adaptive = adaptiveRunOne(n, 2);
        try {
          const load = os.loadavg()[0];
          const c = await timed(() => runEnsemble({ spec }, { seeds: n, concurrency: 2 }, adaptive.runOne));
          rows.push({ round, model: `${name}: default (the first run decides)`, ms: Math.round(c.ms), workers: adaptive.lanes(), loadAverage: +load.toFixed(2) });
        } finally {
          await adaptive.close();
        }
      }
      const sweep = await timed(() => runSweep({ spec: stackegg }, { axes: [{ parameter: 'keepAliveSeconds', from: 1, to: 23, count: 12 }], concurrency: 2 }, inWorkers));
      const boundary = await timed(() => findBoundary({ spec: stackegg }, { parameter: 'keepAliveSeconds', from: 1, to: 15, tolerance: 0.1 }, inWorkers));
      rows.push({ round, model: 'stackegg sweep 12 × keepAliveSeconds (2 workers)', ms: Math.round(sweep.ms) });
      rows.push({ round, model: 'stackegg boundary keepAliveSeconds 1..15, ±0.1 s (2 workers)', ms: Math.round(boundary.ms), runs: boundary.out.probes.length, text: boundary.out.text });
    }
  } finally {
    await runner.close();
  }
  for (const r of rows) console.log(JSON.stringify(r));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
