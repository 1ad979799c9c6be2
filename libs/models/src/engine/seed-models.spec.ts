import fs from 'node:fs';
import path from 'node:path';
import type { ModelSpec } from '../spec/model-spec.types';
import { validateSpec } from '../spec/model-spec.validator';
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

  const cases = SLUGS.flatMap((slug) => (specs.get(slug) as ModelSpec).scenarios.map((s): [string, string] => [slug, s.key]));
  it.each(cases)('%s / %s: all checks pass', (slug, scenarioKey) => {
    const result = runModel({ spec: specs.get(slug), scenarioKey });
    const failing = result.checks.filter((c) => !c.pass).map((c) => `${c.name}: ${c.explanation}`);
    expect(failing).toEqual([]);
    for (const series of result.series) expect(series.values.length).toBeLessThanOrEqual(500);
  });
});
