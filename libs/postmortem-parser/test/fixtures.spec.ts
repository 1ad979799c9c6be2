import fs from 'node:fs';
import path from 'node:path';
import { parsePostmortem, type ImportWarningCode, type ParsePostmortemOptions } from '@hindsight/postmortem-parser';
import { silentlyLostLines } from '../src/testing/line-accounting';

/** The shape of `fixtures/<name>.expected.json`: what the importer must extract from `<name>.*`. */
interface ExpectedExtraction {
  document: string;
  about: string;
  options: ParsePostmortemOptions;
  format: string;
  language: string;
  title: string;
  slug?: string;
  organization?: string;
  source?: { url: string | null };
  patterns?: string[];
  counts: { timeline: number; actionables: number; causalFactors: number };
  sections: { heading: string; kind: string }[];
  timeline: { asWritten: string | null; at: string | null; precision: string; kind?: string; text?: string }[];
  actionables: { title: string; status: string; owner?: string | null; references: { kind: string; ref: string; url: string | null }[] }[];
  summaryContains?: string;
  impactContains?: string;
  narrativeContains?: string[];
  warnings?: ImportWarningCode[];
  absentWarnings?: ImportWarningCode[];
  problemFields?: string[];
  unusedLines?: { line: number; text: string }[];
  valid?: boolean;
}

function expectedFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? expectedFiles(path.join(dir, entry.name)) : entry.name.endsWith('.expected.json') ? [path.join(dir, entry.name)] : [],
    );
}

const fixturesDir = path.join(__dirname, 'fixtures');
const cases = expectedFiles(fixturesDir).map((file) => {
  const expected = JSON.parse(fs.readFileSync(file, 'utf8')) as ExpectedExtraction;
  return [path.relative(fixturesDir, file).replace(/\.expected\.json$/, ''), expected, path.dirname(file)] as const;
});

describe('fixture documents', () => {
  it('has an expected extraction for every general fixture', () => {
    const documents = fs.readdirSync(fixturesDir).filter((name) => !name.endsWith('.json') && !fs.statSync(path.join(fixturesDir, name)).isDirectory());
    const covered = cases.map(([, expected]) => expected.document);
    expect(documents.filter((d) => !covered.includes(d))).toEqual([]);
    expect(documents.length).toBeGreaterThanOrEqual(6);
  });

  describe.each(cases)('%s', (_name, expected, dir) => {
    const { draft, report } = parsePostmortem(fs.readFileSync(path.join(dir, expected.document)), expected.options);

    it('reads format, language, title and slug', () => {
      expect(report.format).toBe(expected.format);
      expect(report.language).toBe(expected.language);
      expect(draft.title).toBe(expected.title);
      if (expected.slug !== undefined) expect(draft.slug).toBe(expected.slug);
      if (expected.organization !== undefined) expect(draft.organization).toBe(expected.organization);
      if (expected.source) expect(draft.source.url).toBe(expected.source.url);
      if (expected.patterns) expect(draft.patterns).toEqual(expected.patterns);
    });

    it('recognises the sections by meaning', () => {
      const own = report.sections.filter((s) => !s.inheritedFrom).map((s) => ({ heading: s.heading, kind: s.kind }));
      expect(own).toEqual(expected.sections);
    });

    it('extracts the expected counts', () => {
      expect({ timeline: draft.timeline.length, actionables: draft.actionables.length, causalFactors: draft.causalFactors.length }).toEqual(expected.counts);
      expect(report.counts).toMatchObject(expected.counts);
    });

    it('reads every timeline entry: as written, instant, precision', () => {
      expect(draft.timeline.map((e) => ({ asWritten: e.asWritten, at: e.at, precision: e.precision }))).toEqual(
        expected.timeline.map((e) => ({ asWritten: e.asWritten, at: e.at, precision: e.precision })),
      );
      expected.timeline.forEach((e, i) => {
        if (e.kind) expect([i, draft.timeline[i].kind]).toEqual([i, e.kind]);
        if (e.text) expect(draft.timeline[i].text).toContain(e.text);
      });
    });

    it('reads every action item: title, status, owner, references', () => {
      expect(draft.actionables).toHaveLength(expected.actionables.length);
      expected.actionables.forEach((a, i) => {
        const got = draft.actionables[i];
        expect(got.title.toLowerCase()).toContain(a.title.toLowerCase());
        expect([i, got.status]).toEqual([i, a.status]);
        if (a.owner !== undefined) expect([i, got.owner]).toEqual([i, a.owner]);
        expect(got.references).toEqual(a.references);
      });
    });

    it('reports the expected warnings, unused lines and draft problems', () => {
      const codes = report.warnings.map((w) => w.code);
      for (const code of expected.warnings ?? []) expect(codes).toContain(code);
      for (const code of expected.absentWarnings ?? []) expect(codes).not.toContain(code);
      if (expected.unusedLines) expect(report.unusedLines).toEqual(expected.unusedLines);
      if (expected.valid !== undefined) expect(report.problems.length === 0).toBe(expected.valid);
      for (const field of expected.problemFields ?? []) expect(report.problems.map((p) => p.field)).toContain(field);
    });

    it('carries summary, impact and narrative text', () => {
      if (expected.summaryContains) expect(draft.summary).toContain(expected.summaryContains);
      if (expected.impactContains) expect(draft.impact).toContain(expected.impactContains);
      for (const text of expected.narrativeContains ?? []) expect(draft.narrative).toContain(text);
      expect(draft.summary.trim()).not.toBe('');
    });

    it('gives every event and action item a unique content-derived key', () => {
      for (const list of [draft.timeline, draft.actionables, draft.causalFactors]) {
        const keys = list.map((x) => x.key);
        expect(new Set(keys).size).toBe(keys.length);
        for (const key of keys) expect(key).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      }
    });
  });
});

describe('no silent loss', () => {
  // Every document the tests hold, the general fixtures and the seed sources alike.
  const documents = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? documents(path.join(dir, entry.name)) : entry.name.endsWith('.json') ? [] : [path.join(dir, entry.name)],
    );

  it.each(documents(fixturesDir).map((file) => [path.relative(fixturesDir, file), file]))(
    '%s: every non-blank line is used or listed as unused, and what is used reaches the draft',
    (_name, file) => {
      const bytes = fs.readFileSync(file);
      const result = parsePostmortem(bytes);
      const nonBlank = bytes.toString('utf8').replace(/\r\n?/g, '\n').split('\n').filter((l) => l.trim() !== '').length;
      expect(result.report.counts.usedLines + result.report.unusedLines.length).toBe(nonBlank);
      expect(silentlyLostLines(bytes, result)).toEqual([]);
    },
  );
});
