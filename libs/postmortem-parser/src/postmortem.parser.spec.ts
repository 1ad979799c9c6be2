import { validateIncidentDocument } from '@hindsight/domain';
import { ImportError, parsePostmortem } from './index';

const md = (...lines: string[]) => lines.join('\n');
const codes = (result: ReturnType<typeof parsePostmortem>) => result.report.warnings.map((w) => w.code);

describe('parsePostmortem', () => {
  describe('accounting for every line', () => {
    const doc = md(
      '<!-- draft, do not share -->',
      '# Cache stampede on the catalogue',
      '',
      '## Summary',
      '',
      'When the catalogue cache was flushed during a deploy every web node queried the database at once.',
      '',
      '## Timeline (UTC)',
      '',
      '**2024-05-02**',
      '',
      '- 10:00 Deploy flushes the catalogue cache',
      '- 10:02 Database CPU at 100%',
      '',
      '| not | a timeline table |',
      '|-----|------------------|',
      '| just | words |',
      '',
      '## Action items',
      '',
      '- Warm the cache before switching traffic (CAT-7)',
    );
    const result = parsePostmortem(doc, { organization: 'Acme' });

    it('reports each non-blank line as used or unused, never both, never neither', () => {
      const nonBlank = doc.split('\n').filter((l) => l.trim() !== '').length;
      expect(result.report.counts.usedLines + result.report.unusedLines.length).toBe(nonBlank);
      expect(result.report.unusedLines).toEqual([{ line: 1, text: '<!-- draft, do not share -->' }]);
    });

    it('keeps what is not an event (a table without times) in the narrative', () => {
      expect(result.draft.narrative).toContain('| just | words |');
      expect(result.draft.narrative).not.toContain('Database CPU at 100%');
    });

    it('produces a draft the domain validator accepts', () => {
      expect(result.report.problems).toEqual([]);
      expect(() => validateIncidentDocument(result.draft)).not.toThrow();
      expect(result.draft.keyTimes.started).toEqual({ at: '2024-05-02T10:00:00Z', precision: 'minute' });
    });
  });

  describe('keys', () => {
    const base = md('# K', '', '## Timeline', '', '**2024-01-01**', '', '- 09:00 Deploy starts', '- 09:05 Errors climb', '- 09:30 Rollback done');
    const keysOf = (doc: string) => parsePostmortem(doc).draft.timeline.map((e) => e.key);

    it('derives keys from the words and the time', () => {
      expect(keysOf(base)).toEqual(['deploy-starts-0900', 'errors-climb-0905', 'rollback-done-0930']);
    });

    it('keeps the other keys when an event is inserted or edited', () => {
      const inserted = keysOf(base.replace('- 09:05 Errors climb', '- 09:01 Pager goes off\n- 09:05 Errors climb'));
      expect(inserted).toEqual(['deploy-starts-0900', 'pager-goes-off-0901', 'errors-climb-0905', 'rollback-done-0930']);
      const edited = keysOf(base.replace('Errors climb', 'Error rate climbs past 5%'));
      expect(edited[0]).toBe('deploy-starts-0900');
      expect(edited[2]).toBe('rollback-done-0930');
    });

    it('numbers true duplicates', () => {
      expect(keysOf(md('# K', '', '## Timeline', '', '- Retry', '- Retry', '- Retry'))).toEqual(['retry', 'retry-2', 'retry-3']);
    });
  });

  describe('time zones and dates', () => {
    const timeline = (...entries: string[]) => md('# Z', '', '## Timeline', '', '**2024-07-01**', '', ...entries.map((e) => `- ${e}`));

    it('keeps times local and says so when no zone is given', () => {
      const result = parsePostmortem(timeline('10:00 thing'));
      expect(result.draft.timeline[0].at).toBe('2024-07-01T10:00:00Z');
      expect(codes(result)).toContain('TIMES_KEPT_LOCAL');
      expect(result.report.timeZone).toEqual({ zone: null, source: 'none' });
    });

    it('converts from an assumed zone when asked, and says it was assumed', () => {
      const result = parsePostmortem(timeline('10:00 thing'), { assumeTimeZone: 'Europe/Berlin' });
      expect(result.draft.timeline[0].at).toBe('2024-07-01T08:00:00Z');
      expect(codes(result)).toEqual(expect.arrayContaining(['ZONE_ASSUMED']));
      expect(codes(result)).not.toContain('TIMES_KEPT_LOCAL');
      expect(result.report.timeZone.source).toBe('option');
    });

    it('lets an entry\'s own zone win over everything, and apply to the entries that name none', () => {
      const result = parsePostmortem(timeline('09:00 thing', '10:00 PDT thing', '11:00 thing', '12:00 UTC thing', '13:00 thing'), { assumeTimeZone: 'UTC' });
      expect(result.draft.timeline.map((e) => e.at)).toEqual([
        '2024-07-01T16:00:00Z',
        '2024-07-01T17:00:00Z',
        '2024-07-01T18:00:00Z',
        '2024-07-01T12:00:00Z',
        '2024-07-01T13:00:00Z',
      ]);
      expect(result.report.warnings.map((w) => w.code)).not.toContain('ZONE_ASSUMED');
    });

    it('moves to the next day at a <date change> marker', () => {
      const result = parsePostmortem(md('# D', '', '## Timeline (UTC)', '', '**2024-02-28**', '', '23:50 first', '<date change>', '00:10 second'));
      expect(result.draft.timeline.map((e) => e.at)).toEqual(['2024-02-28T23:50:00Z', '2024-02-29T00:10:00Z']);
      expect(codes(result)).not.toContain('DATE_ROLLOVER_ASSUMED');
    });

    it('takes the year from the options when the document has none, and says so', () => {
      const doc = md('Outage', '', 'Timeline for April 1st:', '10:19:00 Sessions high', '10:30:00 Keep-alive lowered');
      const result = parsePostmortem(doc, { defaultYear: 2019, format: 'text' });
      expect(result.draft.timeline.map((e) => e.at)).toEqual(['2019-04-01T10:19:00Z', '2019-04-01T10:30:00Z']);
      expect(codes(result)).toContain('YEAR_ASSUMED');
    });

    it('keeps the time as written but no instant when no year is known', () => {
      const result = parsePostmortem(md('Outage', '', 'Timeline for April 1st:', '10:19:00 Sessions high'), { format: 'text' });
      expect(result.draft.timeline[0]).toMatchObject({ asWritten: '10:19:00', at: null, precision: 'none' });
      expect(codes(result)).toContain('DATE_UNKNOWN');
    });

    it('places bare times on the first date written before the timeline, and says so', () => {
      const doc = md('# S', '', 'On 2023-09-12 the queue stalled for an hour in the afternoon, blocking every export job.', '', '## Timeline (UTC)', '', '- 14:02 queue stalls');
      const result = parsePostmortem(doc);
      expect(result.draft.timeline[0].at).toBe('2023-09-12T14:02:00Z');
      expect(codes(result)).toContain('DATE_INFERRED');
    });
  });

  describe('action items', () => {
    const doc = md(
      '# A',
      '',
      '## Action items',
      '',
      '### Storage team',
      '',
      '- Add a disk usage alert: https://github.com/acme/ops/pull/12',
      '  - see also OPS-3 for the dashboard',
      '- Rotate the logs daily **[done]**',
      '- Move logs to object storage',
      '  - Not worth it, the volume is small.',
      '- [ ] Write a runbook (Owner: Kim)',
      '- Page the storage rota on disk alerts @lee',
    );
    const { draft } = parsePostmortem(doc);

    it('attaches sub-bullets and their references to the parent item', () => {
      expect(draft.actionables).toHaveLength(5);
      expect(draft.actionables[0].references.map((r) => r.ref)).toEqual(['https://github.com/acme/ops/pull/12', 'OPS-3']);
      expect(draft.actionables[0].description).toContain('see also OPS-3');
      expect(draft.actionables[0].title).toBe('Add a disk usage alert');
    });

    it('reads statuses, including "not worth it" in a sub-bullet', () => {
      expect(draft.actionables.map((a) => a.status)).toEqual(['open', 'done', 'wont_do', 'open', 'open']);
    });

    it('lists a deeper bullet that is work of its own as an item after its parent', () => {
      const nested = parsePostmortem(
        md('# B', '', '## Follow-ups', '', '- Agree a budget for paid CI minutes', '  - Switch the runners back on (done as of Monday)', '  - Review the spending alerts every quarter', '  - This needs the finance team'),
      ).draft.actionables;
      expect(nested.map((a) => [a.title, a.status])).toEqual([
        ['Agree a budget for paid CI minutes', 'open'],
        ['Switch the runners back on (done as of Monday)', 'done'],
        ['Review the spending alerts every quarter', 'open'],
      ]);
      expect(nested[0].description).toContain('This needs the finance team');
    });

    it('reads a status stated in words: done, in progress, rejected', () => {
      const worded = parsePostmortem(
        md('# C', '', '## Action items', '', '- The old token endpoint has been disabled.', '- We are rewriting the retry logic.', '- Moving the queue was rejected after review.', '- Add an alert on token age.'),
      ).draft.actionables;
      expect(worded.map((a) => a.status)).toEqual(['done', 'in_progress', 'wont_do', 'open']);
    });

    it('keeps the next lines of a status-led paragraph with its item, links included', () => {
      const led = parsePostmortem(
        md('# D', '', '## Follow-ups', '', '- Add an alert on disk usage', '', '**TODO**: watch the certificate expiry dates', 'The exporter would page before anything expires ([issue](https://tracker.example.org/issues/7))'),
      ).draft.actionables;
      expect(led.map((a) => a.title)).toEqual(['Add an alert on disk usage', 'watch the certificate expiry dates']);
      expect(led[1].status).toBe('open');
      expect(led[1].references.map((r) => r.url)).toEqual(['https://tracker.example.org/issues/7']);
    });

    it('gives an action read from prose the link of a short pointer sentence after it', () => {
      const prose = parsePostmortem(
        md('# E', '', '## What next', '', 'We will add rate limits to the upload endpoint.', '', '[This issue](https://tracker.example.org/issues/31) tracks that work.'),
      ).draft.actionables;
      expect(prose.map((a) => a.references.map((r) => r.url))).toEqual([['https://tracker.example.org/issues/31']]);
    });

    it('takes owners from the item, a mention, or the subsection heading', () => {
      expect(draft.actionables.map((a) => a.owner)).toEqual(['Storage team', 'Storage team', 'Storage team', 'Kim', 'lee']);
      expect(draft.components).toContain('Storage team');
    });
  });

  describe('structure', () => {
    const prose = md('A short story', '', 'The deploy went out, something broke for a while, and we rolled it back after lunch without much fuss.');

    it('returns a prose-only draft with a NO_STRUCTURE warning by default', () => {
      const result = parsePostmortem(prose);
      expect(result.draft.narrative).toContain('The deploy went out');
      expect(codes(result)).toContain('NO_STRUCTURE');
    });

    it('throws NO_STRUCTURE instead when asked to', () => {
      expect(() => parsePostmortem(prose, { requireStructure: true })).toThrow(ImportError);
      try {
        parsePostmortem(prose, { requireStructure: true });
      } catch (error) {
        expect((error as ImportError).code).toBe('NO_STRUCTURE');
      }
    });

    it('reads a document as the format the caller names', () => {
      const doc = md('== Marked with equals signs ==', '', 'Timeline for 2020-06-01:', '10:00 thing happened');
      expect(parsePostmortem(doc).report.format).toBe('wikitext');
      const asText = parsePostmortem(doc, { format: 'text' });
      expect(asText.report.format).toBe('text');
      expect(asText.report.formatDetected).toBe(false);
      // Plain text marks headings with "=" too (RD, AsciiDoc): the signs are not part of the title.
      expect(asText.draft.title).toBe('Marked with equals signs');
      expect(asText.draft.timeline[0].at).toBe('2020-06-01T10:00:00Z');
    });

    it('suggests patterns from wording, limited to known keys when given', () => {
      const doc = md('# P', '', 'The clients had no timeout and retries piled up behind a thundering herd of reconnects.');
      const all = parsePostmortem(doc);
      expect(all.draft.patterns).toEqual(['retry-amplification', 'missing-timeout', 'thundering-herd']);
      expect(codes(all)).toContain('PATTERNS_SUGGESTED');
      const known = parsePostmortem(doc, { knownPatterns: ['missing-timeout'] });
      expect(known.draft.patterns).toEqual(['missing-timeout']);
      expect(known.report.suggestedPatterns).toEqual([{ key: 'missing-timeout', evidence: 'no timeout', line: 3 }]);
    });

    it('uses the source URL from the options over the document\'s own', () => {
      const doc = md('---', 'title: T', 'source: https://a.example/x', '---', '', 'Body text that is long enough to serve as the summary of this incident.');
      expect(parsePostmortem(doc).draft.source.url).toBe('https://a.example/x');
      expect(parsePostmortem(doc, { sourceUrl: 'https://b.example/y' }).draft.source.url).toBe('https://b.example/y');
    });

    it('derives the slug from the title and year', () => {
      const doc = md('# Login outage: the Redis failover', '', '## Timeline', '', '- 2022-10-03T08:00 failover');
      expect(parsePostmortem(doc).draft.slug).toBe('login-outage-the-redis-failover-2022');
    });

    it('reads setext headings as sections', () => {
      const doc = md('Queue outage', '============', '', 'Timeline', '--------', '', '- 2022-10-03T08:00 queue stops', '', 'Action items', '------------', '', '- Alert on queue age');
      const { draft, report } = parsePostmortem(doc);
      expect(draft.title).toBe('Queue outage');
      expect(report.sections.map((s) => [s.heading, s.kind])).toEqual([
        ['Timeline', 'timeline'],
        ['Action items', 'actionables'],
      ]);
      expect(draft.timeline[0].at).toBe('2022-10-03T08:00:00Z');
    });

    it('reads the language from the front matter, by tag or by name', () => {
      const doc = (language: string) => md('---', `language: ${language}`, '---', '', '# T', '', 'The deploy went out and the checkout broke for a while until we rolled back.');
      expect(parsePostmortem(doc('pt-BR')).draft.source.language).toBe('pt-BR');
      expect(parsePostmortem(doc('Deutsch')).draft.source.language).toBe('de');
      const unknown = parsePostmortem(doc('Klingon'));
      expect(unknown.draft.source.language).toBe('en');
      expect(codes(unknown)).toContain('FRONT_MATTER_INVALID');
    });

    it('keeps the summary within the incident limits', () => {
      const long = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} says a little more about the outage.`).join(' ');
      const { draft, report } = parsePostmortem(md('# Long', '', '## Summary', '', long));
      expect(draft.summary.length).toBeLessThanOrEqual(2000);
      expect(draft.summary).toMatch(/^Sentence number 0 .*\.$/);
      expect(report.problems.map((p) => p.field)).not.toContain('summary');
    });

    it('is deterministic: the same input gives the same result', () => {
      const doc = md('# Same', '', '## Timeline', '', '- 2022-10-03T08:00 failover');
      expect(parsePostmortem(doc)).toEqual(parsePostmortem(doc));
    });
  });
});
