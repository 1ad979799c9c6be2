import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ModelSpec } from '../spec/model-spec.types';
import { AGREEMENT_SPECS } from '../testing/agreement.fixtures';
import { runModel } from './model.engine';

/*
 * Pins the serialized result of every seed-model scenario and of every DES/fluid agreement
 * case, in both modes for the latter. A change to the engine's code that changes any of
 * them must bump ENGINE_VERSION (which is part of the input hash) and regenerate this file:
 *
 *   UPDATE_GOLDEN=1 npx jest --selectProjects unit --testPathPatterns engine-golden
 *
 * An entry whose input hash no longer matches (its spec was edited, or the version bumped)
 * is stale and not compared; the agreement cases, which only this library edits, must
 * always be current.
 */

const GOLDEN = path.join(__dirname, 'engine-golden.json');
const SEEDS = path.resolve(__dirname, '../../../../seeds/models');

interface Entry {
  inputHash: string;
  resultHash: string;
}

function runs(): Array<{ name: string; agreement: boolean; run: () => { inputHash: string; json: string } }> {
  const out: Array<{ name: string; agreement: boolean; run: () => { inputHash: string; json: string } }> = [];
  const one = (spec: ModelSpec, scenarioKey: string, mode?: 'des' | 'fluid') => () => {
    const r = runModel({ spec, scenarioKey, mode });
    return { inputHash: r.inputHash, json: JSON.stringify(r) };
  };
  for (const file of fs.readdirSync(SEEDS).filter((f) => f.endsWith('.model.json')).sort()) {
    const spec = JSON.parse(fs.readFileSync(path.join(SEEDS, file), 'utf8')) as ModelSpec;
    for (const s of spec.scenarios) out.push({ name: `${spec.slug}|${s.key}`, agreement: false, run: one(spec, s.key) });
  }
  for (const [name, make] of Object.entries(AGREEMENT_SPECS)) {
    for (const mode of ['des', 'fluid'] as const) out.push({ name: `agreement:${name}|${mode}`, agreement: true, run: one(make(), 'as-happened', mode) });
  }
  return out;
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('golden results: the engine gives the same bytes until ENGINE_VERSION says otherwise', () => {
  it('every seed scenario and agreement case matches its recorded result', () => {
    const recorded: Record<string, Entry> = fs.existsSync(GOLDEN) ? (JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as Record<string, Entry>) : {};
    const now: Record<string, Entry> = {};
    const changed: string[] = [];
    const stale: string[] = [];
    for (const c of runs()) {
      const { inputHash, json } = c.run();
      const entry = { inputHash, resultHash: sha(json) };
      now[c.name] = entry;
      const old = recorded[c.name];
      if (!old || old.inputHash !== inputHash) {
        if (c.agreement) stale.push(c.name);
        continue;
      }
      if (old.resultHash !== entry.resultHash) changed.push(c.name);
    }
    if (process.env.UPDATE_GOLDEN === '1') {
      fs.writeFileSync(GOLDEN, `${JSON.stringify(now, null, 1)}\n`);
      return;
    }
    expect({ changed, stale }).toEqual({ changed: [], stale: [] });
  });
});
