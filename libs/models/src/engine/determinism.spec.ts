import fs from 'node:fs';
import path from 'node:path';
import type { ModelSpec } from '../spec/model-spec.types';
import { hashRunInputs } from '../output/run-input.hash';
import { mmcSpec } from '../testing/spec.fixtures';
import { hashRunModelInput, runModel } from './model.engine';

const load = (slug: string): ModelSpec =>
  JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../seeds/models', `${slug}.model.json`), 'utf8')) as ModelSpec;

describe('determinism', () => {
  it.each([
    ['DES', 'apache-outbound-calls-without-timeouts-2011'],
    ['fluid', 'slack-cache-metastability-2022'],
  ])('the same inputs give byte-identical results (%s)', (_mode, slug) => {
    const spec = load(slug);
    const a = JSON.stringify(runModel({ spec, seed: 9 }));
    const b = JSON.stringify(runModel({ spec: JSON.parse(JSON.stringify(spec)) as ModelSpec, seed: 9 }));
    expect(a).toBe(b);
  });

  it('a different seed gives a different DES sample path', () => {
    const spec = mmcSpec(0.9, 1, 1, 2000);
    const a = runModel({ spec, seed: 1 });
    const b = runModel({ spec, seed: 2 });
    expect(JSON.stringify(a.series)).not.toBe(JSON.stringify(b.series));
  });

  it('hashes equal inputs alike and any change differently', () => {
    const spec = load('stackegg-haproxy-session-cap-2015');
    const h = (over: Record<string, unknown> = {}) => hashRunModelInput({ spec, seed: 1, ...over });
    expect(h()).toBe(h());
    expect(h()).toBe(runModel({ spec, seed: 1, checks: false }).inputHash);
    // Overriding a parameter with its default is the same run.
    expect(h({ parameters: { keepAliveSeconds: 15 } })).toBe(h());
    const changed = [h({ seed: 2 }), h({ parameters: { keepAliveSeconds: 5 } }), h({ scenarioKey: 'lower-keep-alive' }), h({ mode: 'des' })];
    expect(new Set([h(), ...changed]).size).toBe(5);
    const edited = { ...spec, description: `${spec.description} (edited)` };
    expect(hashRunModelInput({ spec: edited, seed: 1 })).not.toBe(h());
    expect(
      hashRunInputs({ spec, scenarioKey: 'as-happened', parameters: runModel({ spec, checks: false }).parameters, seed: 1, mode: 'fluid', fluidStep: 0.1, points: 300 }),
    ).toBe(h());
  });
});
