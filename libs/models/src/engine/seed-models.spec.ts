import fs from 'node:fs';
import path from 'node:path';
import type { ModelSpec } from '../spec/model-spec.types';
import { validateSpec } from '../spec/model-spec.validator';
import { aggregateEnsemble } from '../output/ensemble';
import { runModel } from './model.engine';

const DIR = path.resolve(__dirname, '../../../../seeds/models');
const SLUGS = [
  'changeprop-feedback-loop-2016',
  'slack-cache-metastability-2022',
  'apache-outbound-calls-without-timeouts-2011',
  'stackegg-haproxy-session-cap-2015',
];

const specs = new Map<string, ModelSpec>(
  SLUGS.map((slug) => [slug, validateSpec(JSON.parse(fs.readFileSync(path.join(DIR, `${slug}.model.json`), 'utf8')))]),
);

describe('seed models', () => {
  it('ships exactly the four incident models, each named after its slug', () => {
    expect(fs.readdirSync(DIR).filter((f) => f.endsWith('.model.json')).sort()).toEqual(SLUGS.map((s) => `${s}.model.json`).sort());
    for (const [slug, spec] of specs) expect(spec.slug).toBe(slug);
  });

  it.each(SLUGS)('%s: every scenario that stands for an actionable, and the as-happened run, has checks', (slug) => {
    const spec = specs.get(slug) as ModelSpec;
    const unchecked = spec.scenarios
      .filter((s) => s.key === 'as-happened' || s.actionableKey !== null)
      .filter((s) => !(spec.checks ?? []).some((c) => c.scenarios === '*' || c.scenarios.includes(s.key)))
      .map((s) => s.key);
    expect(unchecked).toEqual([]);
  });

  it.each(SLUGS)('%s: states its failure criterion, where every parameter comes from and what every check is', (slug) => {
    const spec = specs.get(slug) as ModelSpec;
    expect(spec.failure?.source.quote).toBeTruthy();
    expect(spec.parameters.filter((p) => !p.provenance).map((p) => p.name)).toEqual([]);
    expect((spec.checks ?? []).filter((c) => !c.kind).map((c) => c.name)).toEqual([]);
    // Only a check that quotes the figure it reproduces counts as evidence.
    for (const c of spec.checks ?? []) if (c.kind === 'reproduces') expect(c.source?.quote).toBeTruthy();
    // The same for the checks over seed ensembles, which every seed model has.
    expect((spec.ensembleChecks ?? []).length).toBeGreaterThan(0);
    expect((spec.ensembleChecks ?? []).filter((c) => !c.kind).map((c) => c.name)).toEqual([]);
    for (const c of spec.ensembleChecks ?? []) if (c.kind === 'reproduces') expect(c.source?.quote).toBeTruthy();
    for (const c of spec.ensembleChecks ?? []) if (c.kind === 'fitted') expect(spec.parameters.map((p) => p.name)).toContain(c.fittedParameter);
  });

  const cases = SLUGS.flatMap((slug) => (specs.get(slug) as ModelSpec).scenarios.map((s): [string, string] => [slug, s.key]));
  it.each(cases)('%s / %s: all checks pass', (slug, scenarioKey) => {
    const result = runModel({ spec: specs.get(slug), scenarioKey });
    const failing = result.checks.filter((c) => !c.pass).map((c) => `${c.name}: ${c.explanation}`);
    expect(failing).toEqual([]);
    for (const series of result.series) expect(series.values.length).toBeLessThanOrEqual(500);
  });
});

/** Every scenario an ensemble check is about, run over as many seeds as its checks ask for. */
const ensembleCases = SLUGS.flatMap((slug) => {
  const spec = specs.get(slug) as ModelSpec;
  return spec.scenarios
    .map((s): [string, string, number] => [slug, s.key, Math.max(0, ...(spec.ensembleChecks ?? []).filter((c) => c.scenarios === '*' || c.scenarios.includes(s.key)).map((c) => c.seeds))])
    .filter(([, , seeds]) => seeds > 0);
});

describe('seed model ensemble checks', () => {
  it.each(ensembleCases)('%s / %s: every ensemble check passes over %i seeds', (slug, scenarioKey, seeds) => {
    const spec = specs.get(slug) as ModelSpec;
    const runs = Array.from({ length: seeds }, (_, i) => runModel({ spec, scenarioKey, seed: i + 1, checks: false }));
    const e = aggregateEnsemble(spec, runs);
    expect(e.notEvaluated).toEqual([]);
    expect(e.checks.length).toBeGreaterThan(0);
    expect(e.checks.filter((c) => !c.pass).map((c) => `${c.name}: ${c.explanation}`)).toEqual([]);
    // The page shows the ensemble in words: the checks are part of them.
    for (const c of e.checks) expect(e.text).toContain(`${c.name}: passes`);
    // A fluid run draws no random numbers; the words say the seeds are copies.
    expect(e.text.includes('every seed gives the same run')).toBe(e.mode === 'fluid');
    // A smaller ensemble says which checks it could not evaluate, and why.
    const small = aggregateEnsemble(spec, runs.slice(0, 1));
    expect(small.checks).toEqual([]);
    for (const c of small.notEvaluated) expect(small.text).toContain(`${c.name} (needs an ensemble of`);
    expect(small.notEvaluated.length).toBeGreaterThan(0);
  }, 120_000);
});

/**
 * Every scenario that stands for an actionable, with the verdict its run supports. The
 * verdict is read from the failure criterion on the run, never from the scenario's checks:
 * "this fix alone is not enough" checks pass, and the fix is still not a prevention.
 */
const VERDICTS: Array<[string, string, string]> = [
  ['changeprop-feedback-loop-2016', 'no-cache-control-forwarding', 'PREVENTED'],
  ['changeprop-feedback-loop-2016', 'content-pinned-to-revision', 'PREVENTED'],
  ['changeprop-feedback-loop-2016', 'generic-loop-guard', 'PREVENTED'],
  ['changeprop-feedback-loop-2016', 'changeprop-concurrency-limit', 'PREVENTED'],
  ['changeprop-feedback-loop-2016', 'mcs-no-redirect-chasing', 'PREVENTED'],
  ['changeprop-feedback-loop-2016', 'gentler-changeprop-retries', 'REDUCED'],
  ['slack-cache-metastability-2022', 'small-steps-only', 'REDUCED'],
  ['slack-cache-metastability-2022', 'rollout-off-peak', 'PREVENTED'],
  ['slack-cache-metastability-2022', 'read-missing-only', 'PREVENTED'],
  ['slack-cache-metastability-2022', 'replica-reads', 'PREVENTED'],
  ['slack-cache-metastability-2022', 'channel-sharded-table', 'PREVENTED'],
  ['slack-cache-metastability-2022', 'mcrib-keeps-nodes', 'PREVENTED'],
  ['apache-outbound-calls-without-timeouts-2011', 'outbound-timeouts', 'PREVENTED'],
  ['apache-outbound-calls-without-timeouts-2011', 'cluster-call-timeouts', 'PREVENTED'],
  ['apache-outbound-calls-without-timeouts-2011', 'self-call-with-timeouts', 'PREVENTED'],
  ['stackegg-haproxy-session-cap-2015', 'lower-keep-alive', 'PREVENTED'],
  ['stackegg-haproxy-session-cap-2015', 'raise-session-limit', 'PREVENTED'],
  ['stackegg-haproxy-session-cap-2015', 'fewer-stackegg-requests', 'NOT_PREVENTED'],
  ['stackegg-haproxy-session-cap-2015', 'april-1-keep-alive-change', 'PREVENTED'],
];

describe('seed model verdicts', () => {
  it('lists every scenario that stands for an actionable', () => {
    const linked = SLUGS.flatMap((slug) => (specs.get(slug) as ModelSpec).scenarios.filter((s) => s.actionableKey !== null).map((s) => `${slug}/${s.key}`));
    expect(linked.sort()).toEqual(VERDICTS.map(([slug, key]) => `${slug}/${key}`).sort());
  });

  it.each(VERDICTS)('%s / %s: %s, as its own run shows', (slug, scenarioKey, outcome) => {
    const result = runModel({ spec: specs.get(slug), scenarioKey, checks: false });
    const v = result.verdict!;
    expect(v.outcome).toBe(outcome);
    expect(v.run).toEqual(result.failure);
    expect(v.baseline.met).toBe(true);
    // What the verdict says must be what the run shows.
    if (outcome === 'PREVENTED') expect(v.run.met).toBe(false);
    else expect(v.run.met).toBe(true);
    if (outcome === 'NOT_PREVENTED') {
      expect(v.run.onset! - v.baseline.onset!).toBeLessThanOrEqual(2 * (result.horizon / result.time.length));
      expect(v.run.duration).toBeGreaterThan(0.9 * v.baseline.duration);
    }
    if (outcome === 'REDUCED') expect(v.run.duration < 0.9 * v.baseline.duration || v.run.magnitude < 0.9 * v.baseline.magnitude).toBe(true);
  });
});
