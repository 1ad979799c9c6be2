'use strict';
/*
 * Profile of the spec-level M/M/1 queue (the queue of bench/run-models-bench.js written as a
 * model spec). Run from the project root:
 *
 *   node --cpu-prof --cpu-prof-dir=<dir> bench/mm1-profile.js [runs] [--engine <dir>]
 *   node bench/mm1-profile.js --summary <dir>/<file>.cpuprofile [top]
 *
 * The first form runs the spec `runs` times (default 5; 1,000,000 events each), with the
 * engine of this checkout or the one under `<dir>/libs/models` (a `git archive` of another
 * commit). The second prints the functions with the most self time, and the share of each
 * engine file, leaving out the TypeScript transform at load and the idle time.
 */
const fs = require('node:fs');
const path = require('node:path');

function summary(file, top) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const self = new Map();
  const byFile = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  // Leave out everything under the module loader (the TypeScript transform at require).
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const underLoader = (id) => {
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const f = byId.get(p).callFrame;
      if (f.functionName === 'require' || f.functionName === 'transformSync' || f.url.includes('register-ts')) return true;
    }
    return false;
  };
  let total = 0;
  for (const [id, us] of dt) {
    const n = byId.get(id);
    const f = n.callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)' || underLoader(id)) continue;
    total += us;
    const fileName = f.url ? path.basename(f.url) : '(native)';
    const key = `${f.functionName || '(anonymous)'} ${fileName}`;
    self.set(key, (self.get(key) ?? 0) + us);
    byFile.set(fileName, (byFile.get(fileName) ?? 0) + us);
  }
  const pct = (us) => ((100 * us) / total).toFixed(1).padStart(5) + ' %';
  console.log(`self time ${(total / 1000).toFixed(0)} ms (loader and idle left out)\nby function:`);
  for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${k}`);
  console.log('by file:');
  for (const [k, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${k}`);
}

const at = process.argv.indexOf('--summary');
if (at > 0) {
  summary(process.argv[at + 1], Number(process.argv[at + 2] ?? 15));
} else {
  require('../scripts/register-ts');
  const engineAt = process.argv.indexOf('--engine');
  const root = engineAt > 0 ? path.resolve(process.argv[engineAt + 1]) : path.join(__dirname, '..');
  const { runModel } = require(path.join(root, 'libs/models/src/engine/model.engine.ts'));
  const runs = Number(process.argv[2]) > 0 ? Number(process.argv[2]) : 5;
  const spec = require('./mm1-spec').mm1Spec(500_000 / 0.9);
  let events = 0;
  const t0 = Date.now();
  for (let i = 0; i < runs; i++) events += runModel({ spec, seed: 1, budget: { maxWallMs: 120_000 } }).stats.events;
  console.log(`${runs} runs, ${events} events in ${Date.now() - t0} ms (${root})`);
}
