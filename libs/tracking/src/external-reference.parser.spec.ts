import { AppError } from '@hindsight/domain';
import { parseExternalReference } from './external-reference.parser';
import { linkReference, parseExternalReference as parse } from './external-reference.parser';
import { DEFAULT_TRACKER_DIRECTORY, DEFAULT_TRACKERS, trackersFor, type TrackerBases } from './tracking-options';

const WITH_JIRA: TrackerBases = { ...DEFAULT_TRACKERS, phabricator: 'https://phabricator.wikimedia.org', jira: 'https://jira.example.com', gerrit: 'https://gerrit.wikimedia.org/r' };

describe('parseExternalReference', () => {
  it.each([
    ['T134456', 'phabricator', 'https://phabricator.wikimedia.org/T134456'],
    ['  T134456 ', 'phabricator', 'https://phabricator.wikimedia.org/T134456'],
    ['https://phabricator.wikimedia.org/T134483', 'phabricator', 'https://phabricator.wikimedia.org/T134483'],
    ['OPS-123', 'jira', 'https://jira.example.com/browse/OPS-123'],
    ['https://jira.example.com/browse/OPS-9', 'jira', 'https://jira.example.com/browse/OPS-9'],
    ['https://github.com/wikimedia/restbase/pull/604', 'github_pull', 'https://github.com/wikimedia/restbase/pull/604'],
    ['https://github.com/wikimedia/restbase/pull/604/files#diff-1', 'github_pull', 'https://github.com/wikimedia/restbase/pull/604'],
    ['https://github.com/acme/api/issues/12?x=1', 'github_issue', 'https://github.com/acme/api/issues/12'],
    ['acme/api#12', 'github_issue', 'https://github.com/acme/api/issues/12'],
    ['https://github.com/wikimedia/restbase/blob/master/sys/parsoid.js#L420', 'url', 'https://github.com/wikimedia/restbase/blob/master/sys/parsoid.js#L420'],
    ['HTTPS://Status.Example.com/incidents/7', 'url', 'https://status.example.com/incidents/7'],
    ['gerrit:419090', 'gerrit', 'https://gerrit.wikimedia.org/r/419090'],
    ['Gerrit 419090', 'gerrit', 'https://gerrit.wikimedia.org/r/419090'],
    [`I${'0a'.repeat(20)}`, 'gerrit', `https://gerrit.wikimedia.org/r/q/I${'0a'.repeat(20)}`],
    ['https://gerrit.wikimedia.org/r/c/mediawiki/core/+/419090/3', 'gerrit', 'https://gerrit.wikimedia.org/r/419090'],
    ['https://review.example.org/#/c/1234/', 'gerrit', 'https://review.example.org/1234'],
    ['https://gerrit.wikimedia.org/r/419090', 'gerrit', 'https://gerrit.wikimedia.org/r/419090'],
    ['https://gitlab.com/acme/platform/api/-/merge_requests/77/diffs', 'gitlab_merge_request', 'https://gitlab.com/acme/platform/api/-/merge_requests/77'],
    ['https://git.example.net/ops/infra/-/issues/5', 'gitlab_issue', 'https://git.example.net/ops/infra/-/issues/5'],
    ['acme/platform!77', 'gitlab_merge_request', 'https://gitlab.com/acme/platform/-/merge_requests/77'],
    ['acme/platform/api#5', 'gitlab_issue', 'https://gitlab.com/acme/platform/api/-/issues/5'],
    ['https://linear.app/acme/issue/ENG-42/shed-load-earlier', 'linear', 'https://linear.app/acme/issue/ENG-42'],
    ['https://acme.atlassian.net/browse/SRE-7', 'jira', 'https://acme.atlassian.net/browse/SRE-7'],
  ])('recognises %s as %s', (raw, kind, url) => {
    expect(parseExternalReference(raw, WITH_JIRA)).toEqual({ kind, ref: raw.trim(), url });
  });

  it('recognises a Jira key without a configured Jira, but gives it no URL', () => {
    expect(parseExternalReference('OPS-123', DEFAULT_TRACKERS)).toEqual({ kind: 'jira', ref: 'OPS-123', url: null });
  });

  it('uses the configured hosts, not hard-coded ones', () => {
    const bases = { ...DEFAULT_TRACKERS, phabricator: 'https://phab.example.org/', jira: null, github: 'https://git.example.org' };
    expect(parseExternalReference('T7', bases).url).toBe('https://phab.example.org/T7');
    expect(parseExternalReference('https://git.example.org/a/b/pull/3', bases)).toMatchObject({ kind: 'github_pull', url: 'https://git.example.org/a/b/pull/3' });
    // github.com itself is always GitHub; another host needs to be configured to count as one.
    expect(parseExternalReference('https://github.com/a/b/pull/3', bases).kind).toBe('github_pull');
    expect(parseExternalReference('https://code.example.com/a/b/pull/3', bases).kind).toBe('url');
  });

  it.each(['ticket 42', 'T0', 't123', 'ops-1', 'javascript:alert(1)', 'ftp://files.example.com/x', 'https://user:pw@example.com/', '', 'x'.repeat(1201)])(
    'refuses %j with BAD_USER_INPUT on the given field',
    (raw) => {
      let error: unknown;
      try {
        parseExternalReference(raw, DEFAULT_TRACKERS, 'patch.references[2]');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('BAD_USER_INPUT');
      expect((error as AppError<'BAD_USER_INPUT'>).details.field).toBe('patch.references[2]');
    },
  );

  it('recognises a shorthand whose tracker the organization lacks, but gives it no link', () => {
    expect(parse('T134456', DEFAULT_TRACKERS)).toEqual({ kind: 'phabricator', ref: 'T134456', url: null });
    expect(parse('gerrit:12', DEFAULT_TRACKERS)).toEqual({ kind: 'gerrit', ref: 'gerrit:12', url: null });
  });

  it("lets the organization's trackers decide between look-alike shorthands", () => {
    const linearTeam = { ...DEFAULT_TRACKERS, linear: 'https://linear.app/acme' };
    expect(parse('ENG-42', linearTeam)).toEqual({ kind: 'linear', ref: 'ENG-42', url: 'https://linear.app/acme/issue/ENG-42' });
    expect(parse('ENG-42', { ...linearTeam, jira: 'https://acme.atlassian.net' }).kind).toBe('jira');
    const gitlabTeam = { ...DEFAULT_TRACKERS, github: null, gitlab: 'https://git.example.net' };
    expect(parse('ops/infra#5', gitlabTeam)).toEqual({ kind: 'gitlab_issue', ref: 'ops/infra#5', url: 'https://git.example.net/ops/infra/-/issues/5' });
    expect(parse('ops/infra#5', DEFAULT_TRACKERS).kind).toBe('github_issue');
  });
});

describe('trackers per organization, applied when a reference is read', () => {
  it("links Wikimedia's Phabricator tasks for Wikimedia only", () => {
    const wikimedia = trackersFor(DEFAULT_TRACKER_DIRECTORY, 'wikimedia foundation');
    expect(parse('T134456', wikimedia).url).toBe('https://phabricator.wikimedia.org/T134456');
    expect(parse('T200001', trackersFor(DEFAULT_TRACKER_DIRECTORY, 'Slack')).url).toBeNull();
  });

  it('reaches references stored before a tracker was configured, and keeps one that no longer parses as stored', () => {
    const stored = parse('OPS-9', DEFAULT_TRACKERS);
    expect(stored.url).toBeNull();
    const later = { defaults: DEFAULT_TRACKERS, organizations: { Acme: { jira: 'https://acme.atlassian.net' } } };
    expect(linkReference(stored, trackersFor(later, 'Acme'))).toEqual({ kind: 'jira', ref: 'OPS-9', url: 'https://acme.atlassian.net/browse/OPS-9' });
    const legacy = { kind: 'url' as const, ref: 'ticket 42', url: 'https://old.example.com/42' };
    expect(linkReference(legacy, DEFAULT_TRACKERS)).toEqual(legacy);
  });
});
