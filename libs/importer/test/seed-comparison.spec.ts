import fs from 'node:fs';
import path from 'node:path';
import type { ActionableDocument, IncidentDocument, TimelineEventDocument } from '@hindsight/domain';
import { parsePostmortem, type ImportResult } from '@hindsight/importer';

/**
 * Imports the four seed-source fixtures (written to reproduce the structure of the documents
 * the shipped incidents come from) and compares the result with the curated incidents in
 * `seeds/incidents/`. Where curation went beyond what the source document states (events and
 * action items written from prose, links added from other sections), the difference is listed
 * here exactly, so any other drift on either side fails the test.
 */
const seedsDir = path.resolve(__dirname, '..', '..', '..', 'seeds', 'incidents');
const sourcesDir = path.join(__dirname, 'fixtures', 'seed-sources');

function curated(slug: string): IncidentDocument {
  return JSON.parse(fs.readFileSync(path.join(seedsDir, `${slug}.json`), 'utf8')) as IncidentDocument;
}

function imported(file: string): ImportResult {
  return parsePostmortem(fs.readFileSync(path.join(sourcesDir, file)));
}

const when = (e: TimelineEventDocument) => ({ asWritten: e.asWritten, at: e.at, precision: e.precision });
const refs = (a: ActionableDocument) => a.references.map((r) => r.ref);

describe('seed sources against the curated seed incidents', () => {
  describe('changeprop-feedback-loop-2016 (Markdown, ISO times, <date change>, 02:3X, (ca.), team subsections)', () => {
    const seed = curated('changeprop-feedback-loop-2016');
    const { draft, report } = imported('changeprop-feedback-loop-2016.md');

    it('matches the timeline in count, order, asWritten, instant and precision', () => {
      expect(draft.timeline.map(when)).toEqual(seed.timeline.map(when));
    });

    it('flags that the times carry no zone and were kept as written', () => {
      expect(report.warnings.map((w) => w.code)).toContain('TIMES_KEPT_LOCAL');
    });

    it('matches the action items in count, order and status', () => {
      expect(draft.actionables.map((a) => a.status)).toEqual(seed.actionables.map((a) => a.status));
    });

    // The curated first item also links the filter line the fix changed, which the source
    // names in its analysis, not in the action item.
    const curatedOnly: Record<number, string[]> = {
      0: ['https://github.com/wikimedia/restbase/blob/master/lib/revision_table_access_check_filter.js#L37'],
    };

    it('matches every action item\'s references, apart from the listed curated-only link', () => {
      expect(draft.actionables.map(refs)).toEqual(seed.actionables.map((a, i) => refs(a).filter((r) => !(curatedOnly[i] ?? []).includes(r))));
      for (const [i, extra] of Object.entries(curatedOnly)) expect(refs(seed.actionables[Number(i)])).toEqual(expect.arrayContaining(extra));
    });

    it('reads the owners from the team subsections', () => {
      expect(draft.actionables.slice(0, 10).map((a) => a.owner)).toEqual(seed.actionables.slice(0, 10).map((a) => a.owner));
    });
  });

  describe('stackegg-haproxy-session-cap-2015 (plain text, "Timeline of events (UTC)", per-day lines)', () => {
    const seed = curated('stackegg-haproxy-session-cap-2015');
    const { draft, report } = imported('stackegg-haproxy-session-cap-2015.txt');

    it('matches the timeline in count, order, asWritten, instant and precision', () => {
      expect(draft.timeline.map(when)).toEqual(seed.timeline.map(when));
      expect(report.timeZone).toEqual({ zone: 'UTC', source: 'document' });
    });

    // Only the start is compared: "mitigated" and "resolved" are judgements. The importer takes the
    // first mitigation and the last recovery event by guessed kind (13:42:19 and 15:02:39 on
    // 31 March); the curator chose 13:46:13 and the last session count on 1 April (15:37:38).
    it('agrees on when it started', () => {
      expect(draft.keyTimes.started).toEqual(seed.keyTimes.started);
    });

    it('finds no action-item section; the curated seed wrote its 7 items from the prose', () => {
      expect(draft.actionables).toEqual([]);
      expect(report.warnings.map((w) => w.code)).toContain('NO_ACTIONABLES');
      expect(seed.actionables).toHaveLength(7);
      expect(seed.actionables.flatMap(refs)).toEqual([]);
    });
  });

  describe('slack-cache-metastability-2022 (Vietnamese, bullet sections, no clock times)', () => {
    const seed = curated('slack-cache-metastability-2022');
    const { draft, report } = imported('slack-cache-metastability-2022.txt');

    it('detects Vietnamese and the sections by their Vietnamese headings', () => {
      expect(draft.source.language).toBe(seed.source.language);
      expect(report.sections.map((s) => [s.heading, s.kind])).toEqual(
        expect.arrayContaining([
          ['Thay đổi chính (diễn biến)', 'timeline'],
          ['Vì sao', 'causes'],
          ['Bài học cho SWE', 'actionables'],
        ]),
      );
    });

    it('reads one event per bullet; the curated seed splits the same bullets into 11 events', () => {
      expect(draft.timeline).toHaveLength(4);
      expect(seed.timeline).toHaveLength(11);
    });

    it('agrees on the only time the source gives (22/2, day precision) and its place before the untimed events', () => {
      const timed = (list: TimelineEventDocument[]) => list.filter((e) => e.asWritten !== null).map(when);
      expect(timed(draft.timeline)).toEqual(timed(seed.timeline));
      expect(draft.timeline[0].asWritten).toBe('22/2');
      expect(draft.timeline.slice(1).map(when)).toEqual(Array(3).fill({ asWritten: null, at: null, precision: 'none' }));
      expect(seed.timeline.every((e) => e.precision === 'none' || e.precision === 'day')).toBe(true);
    });

    it('takes action items only from "Bài học" (low confidence); the curated seed wrote them from the "Khắc phục" prose', () => {
      expect(draft.actionables).toHaveLength(5);
      expect(seed.actionables).toHaveLength(7);
      expect(report.warnings.map((w) => w.code)).toContain('LOW_CONFIDENCE_SECTION');
      expect(draft.actionables.flatMap(refs)).toEqual(seed.actionables.flatMap(refs));
    });
  });

  describe('apache-outbound-calls-without-timeouts-2011 (blog page with several posts, prose only)', () => {
    const seed = curated('apache-outbound-calls-without-timeouts-2011');
    const { draft, report } = imported('apache-outbound-calls-without-timeouts-2011.txt');

    it('imports only the first post and reports the rest of the page as unused', () => {
      expect(draft.title).toBe(seed.source.title);
      expect(report.warnings.map((w) => w.code)).toContain('MULTIPLE_POSTS');
      const unused = report.unusedLines.map((l) => l.text);
      expect(unused).toEqual(expect.arrayContaining(['FreeBSD, gettext, libintl and bash', 'devopsdays Hamburg 2010', 'Monday, 18. 10. 2010  –  Category: conference']));
      expect(draft.narrative).not.toContain('portmaster');
      expect(draft.narrative).toContain('CURLOPT_CONNECTTIMEOUT');
    });

    it('finds no timeline, in agreement with the curated seed having no time at all', () => {
      expect(draft.timeline).toEqual([]);
      expect(report.warnings.map((w) => w.code)).toContain('NO_TIMELINE');
      expect(seed.timeline.map(when).every((t) => t.asWritten === null && t.at === null && t.precision === 'none')).toBe(true);
      expect(seed.timeline).toHaveLength(10);
    });

    it('finds no action items; the curated seed wrote 4 from the prose, none with a reference', () => {
      expect(draft.actionables).toEqual([]);
      expect(seed.actionables).toHaveLength(4);
      expect(seed.actionables.flatMap(refs)).toEqual([]);
    });

    it('suggests the curated patterns that the wording supports', () => {
      expect(seed.patterns).toEqual(expect.arrayContaining(draft.patterns));
      expect(draft.patterns).toEqual(expect.arrayContaining(['missing-timeout', 'resource-exhaustion']));
    });
  });
});
