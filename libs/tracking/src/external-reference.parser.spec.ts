import { AppError } from '@hindsight/domain';
import { parseExternalReference } from './external-reference.parser';
import { DEFAULT_TRACKERS, type TrackerBases } from './tracking-options';

const WITH_JIRA: TrackerBases = { ...DEFAULT_TRACKERS, jira: 'https://jira.example.com' };

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
  ])('recognises %s as %s', (raw, kind, url) => {
    expect(parseExternalReference(raw, WITH_JIRA)).toEqual({ kind, ref: raw.trim(), url });
  });

  it('recognises a Jira key without a configured Jira, but gives it no URL', () => {
    expect(parseExternalReference('OPS-123', DEFAULT_TRACKERS)).toEqual({ kind: 'jira', ref: 'OPS-123', url: null });
  });

  it('uses the configured hosts, not hard-coded ones', () => {
    const bases = { phabricator: 'https://phab.example.org/', jira: null, github: 'https://git.example.org' };
    expect(parseExternalReference('T7', bases).url).toBe('https://phab.example.org/T7');
    expect(parseExternalReference('https://git.example.org/a/b/pull/3', bases)).toMatchObject({ kind: 'github_pull', url: 'https://git.example.org/a/b/pull/3' });
    expect(parseExternalReference('https://github.com/a/b/pull/3', bases).kind).toBe('url');
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
});
