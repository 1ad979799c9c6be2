'use strict';
/*
 * Model-engine benchmark. Run from the project root:
 *
 *   node bench/run-models-bench.js            (full run, about a minute)
 *   node bench/run-models-bench.js --quick    (smaller sizes, for a smoke test)
 *
 * Loads the TypeScript sources directly (transpiled on require by @swc/core, see
 * scripts/register-ts.js); no build step. Every part is bounded: fixed sizes, a timeout on
 * the SimPy process, and wall-time budgets on the engine runs.
 *
 * 1. Kernel throughput on an M/M/1 queue at rho = 0.9, beside two peers measured in the
 *    same process run: SimPy (Debian's python3-simpy3, run with /usr/bin/python3) and a
 *    hand-written binary-heap loop in plain JavaScript (bench/mm1-baseline.js).
 * 2. The full engine on the same queue written as a model spec (DES mode).
 * 3. The as-happened run of each seed incident model.
 *
 * With `--baseline <dir>` (a checkout or `git archive` of another commit holding
 * libs/models), parts 2 and 3 are also timed for that engine: each engine in a child process
 * of its own (two copies of the engine in one process do not run alike: the copy loaded
 * second ran about half as fast in a test of the same code twice), the two alternating
 * (A B A B ...) within this one run so that both see the same machine conditions:
 *
 *   base=$(mktemp -d) && git archive main libs/models | tar -x -C "$base"
 *   node bench/run-models-bench.js --baseline "$base"
 *
 * `--rounds n` sets the number of A B rounds (default 4): more rounds give the seed models'
 * medians, whose runs take only tens of milliseconds, a steadier footing on a busy machine.
 *
 * With `--cpu`, every time (SimPy's too) is the CPU time of the process doing the work
 * instead of the wall clock: on a machine whose cores other work keeps busy, the wall clock
 * also counts the time the benchmark waited for a core, which varies from run to run.
 */
require('../scripts/register-ts');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');

const useCpu = process.argv.includes('--cpu');
/** Milliseconds: wall clock, or with --cpu the process's CPU time (user + system). */
const clock = useCpu
  ? () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    }
  : () => performance.now();

/*
 * Child mode (used by --baseline): `--time <root> <mm1|slug> <runs> <horizon>` loads only the
 * engine under <root>, runs the case to warm up (once for M/M/1, five times for a seed model),
 * then <runs> timed runs, and prints one
 * JSON line with the event count and the wall time of each run.
 */
const timeAt = process.argv.indexOf('--time');
if (timeAt > 0) {
  const [root, what, runs, horizon] = process.argv.slice(timeAt + 1);
  const { runModel: run } = require(path.join(root, 'libs/models/src/engine/model.engine.ts'));
  const input =
    what === 'mm1'
      ? { spec: require('./mm1-spec').mm1Spec(Number(horizon)), seed: 1, budget: { maxWallMs: 120_000 } }
      : { spec: JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'seeds', 'models', `${what}.model.json`), 'utf8')), checks: false, budget: { maxWallMs: 10_000 } };
  // A fresh process: a few runs first so that the timed ones see optimised code.
  for (let i = 0; i < (what === 'mm1' ? 1 : 5); i++) run(input);
  const ms = [];
  let events = 0;
  for (let i = 0; i < Number(runs); i++) {
    const t0 = clock();
    events = run(input).stats.events;
    ms.push(clock() - t0);
  }
  process.stdout.write(`${JSON.stringify({ events, ms })}\n`);
  process.exit(0);
}
const { kernelMM1 } = require('./mm1-kernel');
const { runModel } = require('../libs/models/src/engine/model.engine.ts');
const { loadModelSpec } = require('../libs/models/src/cli/model-cli.ts');
const { runBaseline } = require('./mm1-baseline');

const quick = process.argv.includes('--quick');
const baselineAt = process.argv.indexOf('--baseline');
const baselineDir = baselineAt > 0 ? path.resolve(process.argv[baselineAt + 1]) : null;
const thisRoot = path.join(__dirname, '..');
/** Rounds of the A B A B comparison (`--rounds n`); each child times `perRound` runs after its warm-up. */
const roundsAt = process.argv.indexOf('--rounds');
const AB_ROUNDS = roundsAt > 0 ? Math.max(1, Math.min(50, Number(process.argv[roundsAt + 1]) || 4)) : quick ? 2 : 4;

function timeInChild(root, what, runs, horizon = 0) {
  const res = spawnSync(process.execPath, [__filename, '--time', root, what, String(runs), String(horizon), ...(useCpu ? ['--cpu'] : [])], { encoding: 'utf8', timeout: 300_000 });
  if (res.status !== 0) throw new Error(`timing ${what} with ${root} failed: ${(res.stderr || res.error?.message || '').trim().split('\n').pop()}`);
  return JSON.parse(res.stdout.trim().split('\n').pop());
}

/** This engine and the baseline, alternating in child processes: A B A B ... */
function abTimes(what, perRound, horizon) {
  const a = [];
  const b = [];
  let events = 0;
  let baseEvents = 0;
  for (let r = 0; r < AB_ROUNDS; r++) {
    const x = timeInChild(thisRoot, what, perRound, horizon);
    const y = timeInChild(baselineDir, what, perRound, horizon);
    a.push(...x.ms);
    b.push(...y.ms);
    events = x.events;
    baseEvents = y.events;
  }
  return { a: { events, ms: a }, b: { events: baseEvents, ms: b } };
}
const CUSTOMERS = quick ? 200_000 : 2_000_000;
const SIMPY_CUSTOMERS = quick ? 20_000 : 200_000;
const REPEATS = quick ? 2 : 5;
const SEED_RUNS = quick ? 3 : 9;


/** Best of `repeats` timed runs after one warm-up (the machine is shared: best is least disturbed). */
function best(fn, repeats) {
  fn();
  let bestMs = Infinity;
  let out = null;
  for (let i = 0; i < repeats; i++) {
    const t0 = clock();
    out = fn();
    bestMs = Math.min(bestMs, clock() - t0);
  }
  return { ms: bestMs, out };
}

function simpy(customers) {
  const res = spawnSync('/usr/bin/python3', [path.join(__dirname, 'mm1-simpy.py'), String(customers), '1', useCpu ? 'cpu' : 'wall'], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (res.status !== 0) return { error: (res.stderr || res.error?.message || 'failed').trim().split('\n').pop() };
  return JSON.parse(res.stdout.trim().split('\n').pop());
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const fmt = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

console.log(`Model engine benchmark — node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`Command: node bench/run-models-bench.js${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\nTimes: ${useCpu ? 'CPU time of the process (user + system)' : 'wall clock'}\n`);

// 1. Kernel versus peers.
const kernel = best(() => kernelMM1(CUSTOMERS, 1), REPEATS);
const baseline = best(() => runBaseline(CUSTOMERS, 1), REPEATS);
const sp = simpy(SIMPY_CUSTOMERS);
const kernelRate = kernel.out.events / (kernel.ms / 1000);
const baselineRate = baseline.out.events / (baseline.ms / 1000);
console.log(`M/M/1 at rho = 0.9 (2 events per customer)`);
console.log(`  kernel (SimulationKernel)     ${fmt(kernel.out.events)} events in ${fmt(kernel.ms, 1)} ms = ${fmt(kernelRate / 1e6, 2)} M events/s`);
console.log(`  hand-written heap loop (JS)   ${fmt(baseline.out.events)} events in ${fmt(baseline.ms, 1)} ms = ${fmt(baselineRate / 1e6, 2)} M events/s`);
if (sp.error) console.log(`  SimPy                         unavailable: ${sp.error}`);
else console.log(`  SimPy ${'(python3-simpy3)'.padEnd(23)} ${fmt(2 * sp.customers)} events in ${fmt(sp.seconds * 1000, 1)} ms = ${fmt(sp.eventsPerSecond / 1e6, 3)} M events/s`);
const vsSimpy = sp.error ? null : kernelRate / sp.eventsPerSecond;
const vsBaseline = baselineRate / kernelRate;
console.log(`  kernel / SimPy = ${vsSimpy === null ? 'n/a' : `${fmt(vsSimpy, 1)}×`} (target ≥ 50×); hand loop / kernel = ${fmt(vsBaseline, 2)}× (target ≤ 2×)\n`);

// 2. The full engine on the same queue, as a model spec.
const mm1Spec = require('./mm1-spec').mm1Spec((quick ? 100_000 : 500_000) / 0.9);
const engine = best(() => runModel({ spec: mm1Spec, seed: 1, budget: { maxWallMs: 120_000 } }), REPEATS);
const engineRate = engine.out.stats.events / (engine.ms / 1000);
console.log(`Full engine, same queue as a spec (DES): ${fmt(engine.out.stats.events)} events in ${fmt(engine.ms, 1)} ms = ${fmt(engineRate / 1e6, 2)} M events/s${sp.error ? '' : ` (${fmt(engineRate / sp.eventsPerSecond, 1)}× SimPy)`}, ${fmt(engineRate / kernelRate, 2)}× the kernel`);
let ab = null;
if (baselineDir) {
  const t = abTimes('mm1', 2, mm1Spec.horizon);
  const rate = (x) => x.events / (Math.min(...x.ms) / 1000);
  ab = { thisEventsPerSecond: rate(t.a), baselineEventsPerSecond: rate(t.b), thisMs: t.a.ms, baselineMs: t.b.ms };
  console.log(`  A B A B in child processes (${AB_ROUNDS} rounds of 2 runs each, best): this engine ${fmt(ab.thisEventsPerSecond / 1e6, 2)} M events/s, baseline (${baselineDir}) ${fmt(ab.baselineEventsPerSecond / 1e6, 2)} M events/s = ${fmt(ab.thisEventsPerSecond / ab.baselineEventsPerSecond, 2)}×`);
}
console.log('');

// 3. Seed models, as-happened scenario.
const slugs = ['changeprop-feedback-loop-2016', 'slack-cache-metastability-2022', 'apache-outbound-calls-without-timeouts-2011', 'stackegg-haproxy-session-cap-2015'];
const rows = [];
console.log('Seed models, as-happened scenario (median and best of runs after warm-up):');
/** Median and best of SEED_RUNS timed runs of `run` after a warm-up. */
function timeSeed(run) {
  run();
  const a = [];
  let events = 0;
  for (let i = 0; i < SEED_RUNS; i++) {
    const t0 = clock();
    events = run().stats.events;
    a.push(clock() - t0);
  }
  return { events, medianMs: median(a), bestMs: Math.min(...a), base: null };
}
const summarise = (x) => ({ events: x.events, medianMs: median(x.ms), bestMs: Math.min(...x.ms) });
for (const slug of slugs) {
  const spec = loadModelSpec(slug);
  const t = timeSeed(() => runModel({ spec, checks: false, budget: { maxWallMs: 10_000 } }));
  if (baselineDir) {
    // The A B A B comparison: both engines in child processes, SEED_RUNS runs each in all.
    const x = abTimes(slug, Math.ceil(SEED_RUNS / AB_ROUNDS));
    t.ab = summarise(x.a);
    t.base = summarise(x.b);
  }
  const t0 = clock();
  const withChecks = runModel({ spec, budget: { maxWallMs: 20_000 } });
  const checksMs = clock() - t0;
  const row = { slug, mode: spec.engine.mode, events: t.events, medianMs: t.medianMs, bestMs: t.bestMs, withChecksMs: checksMs, runs: withChecks.stats.runs, ab: t.ab ?? null, baseline: t.base };
  rows.push(row);
  console.log(
    `  ${slug.padEnd(46)} ${row.mode.padEnd(5)} ${fmt(row.events).padStart(7)} events  median ${fmt(row.medianMs, 1).padStart(6)} ms  best ${fmt(row.bestMs, 1).padStart(6)} ms  with checks ${fmt(checksMs, 1)} ms (${row.runs} run${row.runs > 1 ? 's' : ''})`,
  );
  if (t.base) {
    console.log(`  ${'  A B A B: this engine'.padEnd(46)} ${''.padEnd(5)} ${fmt(t.ab.events).padStart(7)} events  median ${fmt(t.ab.medianMs, 1).padStart(6)} ms  best ${fmt(t.ab.bestMs, 1).padStart(6)} ms`);
    console.log(`  ${'  A B A B: baseline'.padEnd(46)} ${''.padEnd(5)} ${fmt(t.base.events).padStart(7)} events  median ${fmt(t.base.medianMs, 1).padStart(6)} ms  best ${fmt(t.base.bestMs, 1).padStart(6)} ms  (this / baseline median ${fmt(t.ab.medianMs / t.base.medianMs, 2)}×)`);
  }
}

console.log(
  `\nJSON ${JSON.stringify({
    node: process.version,
    clock: useCpu ? 'cpu' : 'wall',
    loadavg: os.loadavg(),
    kernel: { events: kernel.out.events, ms: kernel.ms, eventsPerSecond: kernelRate },
    baseline: { events: baseline.out.events, ms: baseline.ms, eventsPerSecond: baselineRate },
    simpy: sp,
    ratios: { kernelOverSimpy: vsSimpy, baselineOverKernel: vsBaseline },
    engine: { events: engine.out.stats.events, ms: engine.ms, eventsPerSecond: engineRate, overKernel: engineRate / kernelRate, overSimpy: sp.error ? null : engineRate / sp.eventsPerSecond },
    ab,
    seeds: rows,
  })}`,
);
