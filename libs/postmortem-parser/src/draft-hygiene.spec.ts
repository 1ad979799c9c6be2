import { parsePostmortem } from './postmortem.parser';

const md = (...lines: string[]) => lines.join('\n');

/** A small Markdown postmortem with the shapes that used to leave placeholder text or debris in a draft. */
const doc = md(
  '# 2024-03-12 Invoice export stalls',
  '',
  '## Summary',
  'Invoice exports stalled for forty minutes; jobs were retried by customers until the queue recovered.',
  '',
  '## Causes',
  '- A schema change locked the export table during business hours.',
  '',
  '## Timeline (UTC)',
  '- 10:02 Exports start timing out',
  '- 10:20 Lock released, throughput recovering',
  '- 10:41 Export latency back to baseline',
  '',
  '## Action items',
  '- Run schema changes outside business hours — OPS-431, due 2024-04-01',
);

describe('draft hygiene', () => {
  const { draft, report } = parsePostmortem(doc);

  it('puts the year in the slug once, even when the title started with the date', () => {
    expect(draft.slug).toBe('invoice-export-stalls-2024');
  });

  it('leaves unknown values empty and flags them instead of writing placeholder text', () => {
    expect(draft.organization).toBeNull();
    expect(draft.causalFactors[0]!.component).toBeNull();
    expect(report.warnings.map((w) => w.code)).toContain('ORGANIZATION_UNKNOWN');
    expect(report.decisions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'organization', value: null, confidence: 0 }),
        expect.objectContaining({ field: `causalFactors.${draft.causalFactors[0]!.key}.component`, value: null, basis: 'not stated: left empty' }),
      ]),
    );
    expect(JSON.stringify(draft)).not.toMatch(/unknown organization|unspecified/i);
  });

  it('drops the punctuation a reference leaves behind in an action title', () => {
    const title = draft.actionables[0]!.title;
    expect(title).not.toMatch(/[—,]\s*(?:,|$)|— ,/);
    expect(draft.actionables[0]!.references.map((r) => r.ref)).toContain('OPS-431');
  });

  it('suggests patterns for review instead of imposing them', () => {
    const suggested = report.suggestedPatterns.map((p) => p.key);
    expect(suggested.length).toBeGreaterThan(0);
    expect(report.warnings.map((w) => w.code)).toContain('PATTERNS_SUGGESTED');
    expect(report.decisions.filter((d) => d.field === 'patterns').every((d) => d.confidence < 1)).toBe(true);
  });

  it('reads "back to baseline" as recovery, so the incident has a resolved time', () => {
    const last = draft.timeline.at(-1)!;
    expect(last.kind).toBe('recovery');
    expect(draft.keyTimes.resolved?.at).toBe('2024-03-12T10:41:00Z');
  });
});
