/**
 * Suggested models for postmortems written for this test (not from the import corpus), in the
 * styles the corpus shows: each is imported as a person would, and the draft is read as it is.
 * The rules must carry over to documents they were not written against.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parsePostmortem } from '@hindsight/postmortem-parser';
import { suggestModels, type ModelSuggestion } from '@hindsight/model-templates';
import { runModel } from '@hindsight/models';

function suggest(file: string): ModelSuggestion {
  const { draft } = parsePostmortem(fs.readFileSync(path.join(__dirname, 'fixtures', 'unseen', file), 'utf8'));
  return suggestModels(draft, { limit: 1 })[0]!;
}
const outcome = (s: ModelSuggestion, prefix: string) => runModel({ spec: s.spec, scenarioKey: s.spec.scenarios.find((x) => x.key.startsWith(prefix))!.key, checks: false }).verdict?.outcome;
const fromDocument = (s: ModelSuggestion) => Object.fromEntries(s.parameters.filter((p) => p.from === 'text' || p.from === 'timeline').map((p) => [p.name, p.value]));

describe('suggested models for postmortems the rules were not written against', () => {
  it('a worker that leaks memory until it is killed: resource exhaustion, with the fixes it names and their own figures', () => {
    const s = suggest('worker-memory-leak.md');
    expect(s.template.key).toBe('resource-exhaustion');
    // 14:02 to 16:05 from the timeline; the alert threshold and the expiry from the actionables.
    expect(fromDocument(s)).toMatchObject({ recoverSeconds: 7380, alertShare: 0.75, reclaimAfterSeconds: 300 });
    expect(s.parameters.find((p) => p.name === 'alertShare')!.figure!.anchor).toMatch(/^actionable-/);
    expect(s.matches.map((m) => m.remedy).sort()).toEqual(['concurrency-limit', 'detect-earlier', 'reclaim']);
    expect(runModel({ spec: s.spec, scenarioKey: 'as-happened', checks: false }).failure?.met).toBe(true);
    expect(outcome(s, 'reclaim--')).toBe('PREVENTED');
  });

  it('a configuration pushed everywhere at once: a bad change, whose staged rollout, validation and rollback are matched', () => {
    const s = suggest('tls-config-push.md');
    expect(s.template.key).toBe('bad-change');
    expect(fromDocument(s)).toMatchObject({ errorShare: 0.3, recoverSeconds: 3900, bakeSeconds: 3600 });
    expect(s.matches.map((m) => m.remedy).sort()).toEqual(['pre-deploy-validation', 'rollback', 'stagger-rollout']);
    expect(runModel({ spec: s.spec, scenarioKey: 'as-happened', checks: false }).failure?.met).toBe(true);
    // Noticed 25 minutes in, within the hour's bake: the canary stage never goes further.
    expect(outcome(s, 'staged-rollout--')).toBe('PREVENTED');
    expect(outcome(s, 'fast-rollback--')).toBe('REDUCED');
  });

  it('a leaked key used for days: an exposure window, where detection and revocation reduce the harm and do not prevent it', () => {
    const s = suggest('leaked-cloud-key.md');
    expect(s.template.key).toBe('exposure-window');
    expect(fromDocument(s)).toMatchObject({ windowSeconds: 356_400 });
    expect(s.matches.map((m) => m.remedy).sort()).toEqual(['detect-earlier', 'harden-access', 'revoke-access']);
    expect(runModel({ spec: s.spec, scenarioKey: 'as-happened', checks: false }).failure?.met).toBe(true);
    for (const prefix of ['detect-earlier--', 'revoke-quickly--', 'harden-access--']) expect(outcome(s, prefix)).toBe('REDUCED');
  });
});
