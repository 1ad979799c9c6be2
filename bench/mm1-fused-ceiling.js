'use strict';
/*
 * Ceiling experiment for the spec-level M/M/1 (not engine code): how fast could the run be if
 * the engine generated, per spec, one handler per event kind instead of walking its blocks?
 * Run from the project root:
 *
 *   node bench/mm1-fused-ceiling.js            (the engine as it is)
 *   node bench/mm1-fused-ceiling.js fused      (the two handlers written out by hand)
 *
 * `fused` replaces the run's dispatch, for bench/mm1-spec.js only, by a hand-written handler for
 * its two event kinds over the engine's own objects: the same visits, gate queue, bookings
 * (every accumulator the run switched on) and random draws, in the same order. It prints a hash
 * of the whole result (timings left out), which must equal the engine's, so the comparison is
 * like for like. Both print the best of 7 runs after a warm-up (CPU time), the bare kernel's
 * M/M/1 loop (bench/run-models-bench.js, part 1) timed in the same process, and SimPy
 * (bench/mm1-simpy.py, 200,000 customers, CPU time) run from it.
 */
require('../scripts/register-ts');
const crypto = require('node:crypto');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const E = '../libs/models/src/engine/';
const { FlowSimulation } = require(`${E}flow.runtime.ts`);
const { Visit } = require(`${E}visit.ts`);
const { EV_SOURCE, EV_SERVICE_END, EPS, S_QUEUED, S_SERVICE, S_DONE } = require(`${E}runtime.constants.ts`);
const { runModel } = require(`${E}model.engine.ts`);
const { kernelMM1 } = require('./mm1-kernel');

const fused = process.argv[2] === 'fused';
const run = FlowSimulation.prototype.run;
FlowSimulation.prototype.run = function (budget) {
  if (fused) installFused(this);
  return run.call(this, budget);
};

/** One source (rate 0.9, plain edge) into one station (1 slot, exponential service of mean 1). */
function installFused(sim) {
  const k = sim.kernel;
  const src = sim.sources[0];
  const st = sim.stations[0];
  const inst = st.instances[0];
  const gate = inst.gate;
  const ss = st.stats;
  const srcs = src.stats;
  const es = src.edge.stats;
  const srng = src.rng;
  const strng = st.rng;
  const admit = (v, now) => {
    gate.holding += 1;
    ss.holding.change(now, 1);
    if (ss.admitted.on) ss.admitted.add(now, 1);
    ss.recordWait(now, now - v.enqueuedAt, 1);
    const d = strng.exponential(1);
    v.state = S_SERVICE;
    if (ss.working.on) ss.working.change(now, 1);
    k.schedule(now + d, EV_SERVICE_END, v);
  };
  sim.dispatch = (kind, target) => {
    const now = k.now;
    if (kind === EV_SOURCE) {
      if (srcs.offered.on) srcs.offered.add(now, 1);
      if (es.attempts.on) es.attempts.add(now, 1);
      if (srcs.attempts.on) srcs.attempts.add(now, 1);
      const v = new Visit(1, st, inst, null, src.root, 1, now);
      v.client = src;
      if (ss.offered.on) ss.offered.add(now, 1);
      ss.arrivals += 1;
      ss.insideMass += 1;
      ss.insideArrivalSum += 1 * now;
      if (gate.live === 0 && 1 - gate.holding >= 1 - EPS) {
        admit(v, now);
      } else {
        v.state = S_QUEUED;
        v.enqueuedAt = now;
        ss.queue.change(now, 1);
        gate.queueMass += 1;
        gate.queue.push(v);
        gate.live++;
      }
      k.schedule(now + srng.exponential(1 / 0.9), EV_SOURCE, target);
      return;
    }
    if (kind !== EV_SERVICE_END) throw new Error(`unexpected event kind ${kind}`);
    const v = target;
    if (ss.working.on) ss.working.change(now, -1);
    if (ss.throughput.on) ss.throughput.add(now, 1);
    if (ss.latency.on) ss.latency.add(now, now - v.arrivedAt, 1);
    if (ss.goodput.on) ss.goodput.add(now, 1);
    if (srcs.success.on) srcs.success.add(now, 1);
    if (srcs.latency.on) srcs.latency.add(now, now - v.arrivedAt, 1);
    gate.holding -= 1;
    if (gate.holding < EPS) gate.holding = 0;
    ss.holding.change(now, -1);
    if (gate.live > 0) {
      const head = gate.queue[gate.qHead];
      gate.shiftHead();
      gate.queueMass -= 1;
      if (gate.queueMass < EPS) gate.queueMass = 0;
      ss.queue.change(now, -1);
      gate.live--;
      if (gate.live === 0) gate.queueMass = 0;
      admit(head, now);
    }
    v.state = S_DONE;
    ss.departed += 1;
    ss.sojournSum += 1 * (now - v.arrivedAt);
    ss.insideMass -= 1;
    ss.insideArrivalSum -= 1 * v.arrivedAt;
  };
}


const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
function best(fn, runs) {
  fn();
  let ms = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = cpu();
    fn();
    ms = Math.min(ms, cpu() - t0);
  }
  return ms;
}

const spec = require('./mm1-spec').mm1Spec(500_000 / 0.9);
const input = { spec, seed: 1, budget: { maxWallMs: 120_000 } };
const result = runModel(input);
const hash = crypto
  .createHash('sha256')
  .update(JSON.stringify(result, (key, x) => (/ms$|wall/i.test(key) ? undefined : x)))
  .digest('hex')
  .slice(0, 16);
const engineMs = best(() => runModel(input), 7);
const kernelMs = best(() => kernelMM1(2_000_000, 1).events, 5);
const sp = spawnSync('/usr/bin/python3', [path.join(__dirname, 'mm1-simpy.py'), '200000', '1', 'cpu'], { encoding: 'utf8', timeout: 300_000 });
const simpyRate = sp.status === 0 ? JSON.parse(sp.stdout.trim().split('\n').pop()).eventsPerSecond / 1000 : NaN;
const rate = result.stats.events / engineMs;
const kernelRate = 4_000_000 / kernelMs;
console.log(
  `${fused ? 'fused handler' : 'engine       '}  ${result.stats.events} events, best ${engineMs.toFixed(1)} ms = ${(rate / 1000).toFixed(2)} M events/s; ` +
    `kernel ${(kernelRate / 1000).toFixed(2)} M events/s, SimPy ${(simpyRate / 1000).toFixed(3)} M events/s; ` +
    `× kernel ${(rate / kernelRate).toFixed(2)}, × SimPy ${(rate / simpyRate).toFixed(1)}; result ${hash}`,
);
