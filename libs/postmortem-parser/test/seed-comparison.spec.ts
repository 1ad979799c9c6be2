import fs from 'node:fs';
import path from 'node:path';
import type { ActionableDocument, IncidentDocument, TimelineEventDocument } from '@hindsight/domain';
import { parsePostmortem, type ImportResult } from '@hindsight/postmortem-parser';

/**
 * Imports the four seed-source fixtures (written to reproduce the structure of the documents
 * the shipped incidents come from) and compares the drafts with the curated incidents in
 * `seeds/incidents/`: timeline entries and action items must match in count, order, times,
 * status and references. Where an entry has no time, order is checked by pairing each curated key
 * with words of the source the imported entry must contain.
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

/** Curated keys, in order, each with words the imported entry at the same place must contain. */
function expectPairs(curatedList: { key: string }[], importedList: { text?: string; title?: string; description?: string }[], pairs: [string, string][]) {
  expect(curatedList.map((c) => c.key)).toEqual(pairs.map(([key]) => key));
  expect(importedList).toHaveLength(pairs.length);
  pairs.forEach(([key, words], i) => {
    const got = importedList[i];
    expect([key, `${got.text ?? ''} ${got.title ?? ''} ${got.description ?? ''}`.toLowerCase().includes(words.toLowerCase())]).toEqual([key, true]);
  });
}

/** Action items compared field by field: status and references. */
const actionFacts = (a: ActionableDocument) => ({ status: a.status, references: refs(a) });

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

    it('matches the action items in count, order, status and references', () => {
      expect(draft.actionables.map(actionFacts)).toEqual(seed.actionables.map(actionFacts));
      expect(draft.actionables.flatMap(refs)).toHaveLength(13);
    });

    it('reads the owners from the team subsections', () => {
      expect(draft.actionables.slice(0, 10).map((a) => a.owner)).toEqual(seed.actionables.slice(0, 10).map((a) => a.owner));
    });

    it('reads nothing from prose: the document has a timeline and an action-item list', () => {
      expect(report.warnings.map((w) => w.code)).not.toEqual(expect.arrayContaining(['EVENTS_FROM_PROSE']));
      expect(report.warnings.map((w) => w.code)).not.toContain('ACTIONS_FROM_PROSE');
    });
  });

  describe('stackegg-haproxy-session-cap-2015 (plain text, "Timeline of events (UTC)", per-day lines, follow-ups only in prose)', () => {
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

    it('reads the action items from the prose: what was done, then what is under way or still to do', () => {
      expectPairs(seed.actionables, draft.actionables, [
        ['raise-haproxy-session-limit', 'concurrent session limit'],
        ['embed-initial-game-state-in-page', 'first AJAX request'],
        ['reduce-fresh-data-calls-via-websockets', 'websockets'],
        ['lower-keep-alive-to-5s-during-stackegg', 'Keep-Alive from 15s to 5s'],
        ['measure-keep-alive-effect-via-client-timings', 'client timings'],
        ['watch-datacenter-performance', 'performance in our data center'],
        ['internal-outage-discussion', 'internal discussion'],
      ]);
      expect(draft.actionables.map(actionFacts)).toEqual(seed.actionables.map(actionFacts));
      expect(report.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(['ACTIONS_FROM_PROSE']));
      expect(report.warnings.map((w) => w.code)).not.toContain('NO_ACTIONABLES');
    });
  });

  describe('slack-cache-metastability-2022 (Vietnamese, labelled bullets, one date)', () => {
    const seed = curated('slack-cache-metastability-2022');
    const { draft, report } = imported('slack-cache-metastability-2022.txt');

    it('detects Vietnamese and the sections by their Vietnamese headings', () => {
      expect(draft.source.language).toBe(seed.source.language);
      expect(report.sections.map((s) => [s.heading, s.kind])).toEqual(
        expect.arrayContaining([
          ['Thay đổi chính (diễn biến)', 'timeline'],
          ['Vì sao', 'causes'],
          // Lessons are kept as narrative once the "Khắc phục" bullet says what was and will be done.
          ['Bài học cho SWE', 'other'],
        ]),
      );
    });

    it('splits the bullets into the events they report, in count, order and time', () => {
      expect(draft.timeline.map(when)).toEqual(seed.timeline.map(when));
      expectPairs(seed.timeline, draft.timeline, [
        ['earlier-25pct-consul-steps-uneventful', 'Tuần trước'],
        ['consul-25pct-step-at-peak', 'ngày 22/2'],
        ['cache-hit-rate-drops', 'cache hit'],
        ['gdm-scatter-queries-time-out', 'query bị timeout'],
        ['consul-restarts-halted-without-effect', 'restart Consul'],
        ['overload-sustains-itself', 'quá tải tự duy trì'],
        ['boot-requests-throttled', 'throttle request boot'],
        ['throttle-relaxed-too-fast-relapse', 'lần nới đầu tiên'],
        ['query-reads-only-missing-entries', 'sửa query'],
        ['replica-reads-enabled', 'replica'],
      ]);
      expect(report.warnings.map((w) => w.code)).toContain('EVENTS_FROM_PROSE');
      // What the events leave out (how the lookup normally works) stays in the narrative, bullet as written.
      expect(draft.narrative).toContain('Bình thường nó có sẵn trong cache theo channel ID');
      expect(report.unusedLines).toEqual([]);
    });

    it('reads the done items after "Khắc phục:" and the open ones after "Về sau:"', () => {
      expectPairs(seed.actionables, draft.actionables, [
        ['throttle-boot-requests', 'throttle request boot'],
        ['reopen-boot-throttle-in-small-steps', 'nới dần'],
        ['fetch-only-missing-gdm-entries', 'sửa query'],
        ['allow-replica-reads-for-gdm-membership', 'replica'],
        ['move-gdm-query-to-channel-sharded-table', 'bảng shard theo channel'],
        ['audit-scatter-queries-behind-caches', 'query scatter khác'],
        ['change-consul-rollout-procedure', 'rollout Consul'],
        ['fix-mcrib-control-loop', 'Mcrib'],
      ]);
      expect(draft.actionables.map(actionFacts)).toEqual(seed.actionables.map(actionFacts));
      expect(report.warnings.map((w) => w.code)).not.toContain('LOW_CONFIDENCE_SECTION');
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

    it('reads the events from the sentences that report them, untimed as in the curated seed', () => {
      expect(draft.timeline.map(when)).toEqual(seed.timeline.map(when));
      expectPairs(seed.timeline, draft.timeline, [
        ['remote-sites-outage', 'went down'],
        ['hung-processes-fill-apache-slots', 'fill every slot'],
        ['new-connections-hang', 'simply stall'],
        ['server-load-stays-low', 'load stays low'],
        ['no-errors-logged', 'logs any error'],
        ['wedge-traced-to-curl-poll', 'Attach gdb'],
        ['graceful-restart-fails', 'graceful restart'],
        ['hung-processes-matched-to-connections', 'netstat'],
        ['curl-timeouts-added', 'CURLOPT_TIMEOUT'],
        ['stable-since-timeouts', 'wobbled since'],
      ]);
      expect(report.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(['EVENTS_FROM_PROSE']));
      expect(report.warnings.map((w) => w.code)).not.toContain('NO_TIMELINE');
    });

    it('reads the two fixes made from the prose, and also two pieces of advice an editor removes', () => {
      // The curated incident lists only what was done: the post's asynchronous ingest and the
      // footer cache are advice, not follow-ups. The importer cannot tell them apart by its
      // rules, so the draft carries them too, flagged for review like every item read from prose.
      const [fixes, advice] = [draft.actionables.slice(0, 2), draft.actionables.slice(2)];
      expectPairs(seed.actionables, fixes, [
        ['wordpress-curl-connect-and-total-timeouts', 'CURLOPT_CONNECTTIMEOUT'],
        ['cluster-outbound-call-timeouts', 'code on the cluster'],
      ]);
      expect(fixes.map(actionFacts)).toEqual(seed.actionables.map(actionFacts));
      expect(fixes.map((a) => a.owner)).toEqual(seed.actionables.map((a) => a.owner));
      expect(advice.map((a) => `${a.title} ${a.description ?? ''}`)).toEqual([expect.stringMatching(/asynchronously/i), expect.stringMatching(/cache the result/i)]);
    });

    it('suggests the curated patterns that the wording supports', () => {
      expect(seed.patterns).toEqual(expect.arrayContaining(draft.patterns));
      expect(draft.patterns).toEqual(expect.arrayContaining(['missing-timeout', 'resource-exhaustion']));
    });
  });
});
