import { parsePostmortem } from '../index';
import { generatePostmortemDocuments } from './generate-documents';

describe('generatePostmortemDocuments', () => {
  it('is deterministic for a seed and varies with it', () => {
    const a = generatePostmortemDocuments(12, { seed: 3 });
    expect(generatePostmortemDocuments(12, { seed: 3 })).toEqual(a);
    expect(generatePostmortemDocuments(12, { seed: 4 }).map((d) => d.text)).not.toEqual(a.map((d) => d.text));
    expect(new Set(a.map((d) => d.format))).toEqual(new Set(['markdown', 'wikitext', 'text']));
  });

  it('produces documents the importer reads completely, with the counts it promises', () => {
    const docs = generatePostmortemDocuments(120, { seed: 11 });
    const mismatches = docs.flatMap((doc) => {
      const { draft, report } = parsePostmortem(doc.text, { organization: 'Generated' });
      const got = { title: draft.title, timeline: draft.timeline.length, actionables: draft.actionables.length, causalFactors: draft.causalFactors.length };
      const problems = [...report.problems.map((p) => `${p.field}: ${p.reason}`), ...report.unusedLines.map((l) => `unused line ${l.line}`)];
      return JSON.stringify(got) === JSON.stringify(doc.expected) && problems.length === 0 && report.format === doc.format ? [] : [{ name: doc.name, got, expected: doc.expected, problems }];
    });
    expect(mismatches).toEqual([]);
  });
});
