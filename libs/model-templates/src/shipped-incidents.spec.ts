/**
 * The four shipped incidents, read as if they had no model: the suggested template, the figures
 * it reads from each incident's own text, and the actionables it matches to fixes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IncidentDocument } from '@hindsight/domain';
import { suggestModels } from './suggest';

const seeds = path.resolve(__dirname, '../../../seeds/incidents');
function incident(slug: string): IncidentDocument {
  const doc = JSON.parse(fs.readFileSync(path.join(seeds, `${slug}.json`), 'utf8')) as IncidentDocument;
  return { ...doc, narrative: fs.readFileSync(path.join(seeds, `${slug}.md`), 'utf8') };
}
const param = (s: ReturnType<typeof suggestModels>[number], name: string) => s.parameters.find((p) => p.name === name)!;

describe('suggestions for the shipped incidents', () => {
  it('StackEgg: a connection cap with 3,444 conn/s, 15 s keep-alive and the 40,000 cap read from its text', () => {
    const [best] = suggestModels(incident('stackegg-haproxy-session-cap-2015'));
    expect(best!.template.key).toBe('connection-cap');
    expect(param(best!, 'addedRate')).toMatchObject({ value: 3444, from: 'text' });
    expect(param(best!, 'holdSeconds')).toMatchObject({ value: 15, from: 'text' });
    expect(param(best!, 'cap')).toMatchObject({ value: 40000, from: 'text' });
    expect(param(best!, 'cap').provenance).toMatchObject({ kind: 'source' });
    expect(param(best!, 'cap').figure!.quote).toContain('40,000');
    const keys = best!.matches.map((m) => [m.actionableKey, m.remedy]);
    expect(keys).toContainEqual(['raise-haproxy-session-limit', 'raise-cap']);
    expect(keys).toContainEqual(['lower-keep-alive-to-5s-during-stackegg', 'lower-keep-alive']);
    // Measuring and watching are not fixes.
    expect(keys.map(([k]) => k)).not.toContain('measure-keep-alive-effect-via-client-timings');
    expect(best!.spec.scenarios.find((s) => s.actionableKey === 'raise-haproxy-session-limit')?.parameters?.cap).toBeGreaterThan(40000);
  });

  it('Apache: a hung dependency holding worker slots, the missing timeout matched to the add-timeout fix', () => {
    const [best] = suggestModels(incident('apache-outbound-calls-without-timeouts-2011'));
    expect(best!.template.key).toBe('slot-exhaustion');
    expect(best!.matches.map((m) => [m.actionableKey, m.remedy])).toContainEqual(['wordpress-curl-connect-and-total-timeouts', 'add-timeout']);
    // The wedge arithmetic (slots / (rate × share)) rests on what the post states in words: the call
    // is made on every page, and it has no timeout. It gives no MaxClients or rate: those stay assumptions.
    expect(param(best!, 'callShare')).toMatchObject({ value: 1, from: 'text' });
    expect(param(best!, 'callShare').figure!.raw).toMatch(/every|each|all/);
    expect(param(best!, 'callTimeoutSeconds')).toMatchObject({ value: 0, from: 'text' });
    expect(param(best!, 'slots').from).toBe('default');
    expect(best!.spec.failure!.source.quote.length).toBeGreaterThan(10);
  });

  it('ChangeProp: retries read as 5 and the ~500 ms delay, its retry and concurrency actionables matched', () => {
    const suggestions = suggestModels(incident('changeprop-feedback-loop-2016'));
    const loop = suggestions.find((s) => s.template.key === 'feedback-loop') ?? suggestions[0]!;
    expect(['feedback-loop', 'retry-amplification']).toContain(suggestions[0]!.template.key);
    expect(param(loop, 'retries')).toMatchObject({ value: 5, from: 'text' });
    expect(param(loop, 'retryDelaySeconds')).toMatchObject({ value: 0.5, from: 'text' });
    const remedies = loop.matches.map((m) => m.remedy);
    expect(remedies).toEqual(expect.arrayContaining(['concurrency-limit', 'retry-budget']));
  });

  it('Slack: a lost look-aside cache with the 25 % step read from its text, the cache fixes matched', () => {
    const [best] = suggestModels(incident('slack-cache-metastability-2022'));
    expect(best!.template.key).toBe('cache-loss');
    expect(param(best!, 'flushShare')).toMatchObject({ value: 0.25, from: 'text' });
    expect(param(best!, 'flushShare').figure!.raw).toMatch(/25\s?%/);
    const byKey = Object.fromEntries(best!.matches.map((m) => [m.actionableKey, m.fixKey]));
    expect(byKey['fetch-only-missing-gdm-entries']).toBe('read-missing-only');
    expect(byKey['throttle-boot-requests']).toBe('throttle-requests');
    expect(byKey['reopen-boot-throttle-in-small-steps']).toBeDefined();
  });
});
