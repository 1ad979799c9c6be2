import { extractReferences } from './reference.extractor';

describe('extractReferences', () => {
  it('recognises GitHub pull requests and issues, Phabricator tasks and plain links, trackers first', () => {
    expect(
      extractReferences('See https://github.com/acme/api/blob/main/x.js#L3 and https://github.com/acme/api/pull/604, {T134456}, https://github.com/acme/api/issues/9.'),
    ).toEqual([
      { kind: 'github_pull', ref: 'https://github.com/acme/api/pull/604', url: 'https://github.com/acme/api/pull/604' },
      { kind: 'phabricator', ref: 'T134456', url: 'https://phabricator.wikimedia.org/T134456' },
      { kind: 'github_issue', ref: 'https://github.com/acme/api/issues/9', url: 'https://github.com/acme/api/issues/9' },
      { kind: 'url', ref: 'https://github.com/acme/api/blob/main/x.js#L3', url: 'https://github.com/acme/api/blob/main/x.js#L3' },
    ]);
  });

  it('uses the configured tracker bases', () => {
    expect(extractReferences('T123456 OPS-12 #77', { phabricator: 'https://phab.example.org/', jira: 'https://jira.example.com', github: 'https://github.com/acme/api' })).toEqual([
      { kind: 'phabricator', ref: 'T123456', url: 'https://phab.example.org/T123456' },
      { kind: 'jira', ref: 'OPS-12', url: 'https://jira.example.com/browse/OPS-12' },
      { kind: 'github_issue', ref: '#77', url: 'https://github.com/acme/api/issues/77' },
    ]);
  });

  it('leaves URLs empty when no base is configured, but links owner/repo#n', () => {
    expect(extractReferences('JIRA-12, #5 and acme/web#31')).toEqual([
      { kind: 'jira', ref: 'JIRA-12', url: null },
      { kind: 'github_issue', ref: '#5', url: null },
      { kind: 'github_issue', ref: 'acme/web#31', url: 'https://github.com/acme/web/issues/31' },
    ]);
  });

  it('does not read standards, units or URL fragments as references', () => {
    expect(extractReferences('UTF-8, SHA-256, ISO-8601, HTTP-2, a page#12 anchor, UTC-8')).toEqual([]);
  });

  it('keeps a Markdown link target without the closing parenthesis and a sentence\'s full stop', () => {
    expect(extractReferences('In [node.pp](https://example.org/node.pp#L277) or see https://example.org/a.').map((r) => r.ref)).toEqual([
      'https://example.org/node.pp#L277',
      'https://example.org/a',
    ]);
  });

  it('stores GitHub links without the tab they were copied from, keeping what was written as ref', () => {
    expect(extractReferences('https://github.com/acme/api/pull/604/files#diff-1')).toEqual([
      { kind: 'github_pull', ref: 'https://github.com/acme/api/pull/604/files#diff-1', url: 'https://github.com/acme/api/pull/604' },
    ]);
  });

  it('lists each reference once', () => {
    expect(extractReferences('T134551 and again {T134551}')).toHaveLength(1);
  });
});
