import { AppError, LIMITS, type ExternalReferenceDocument } from '@hindsight/domain';
import type { TrackerBases } from './tracking-options';

const PHABRICATOR_TASK = /^T[1-9]\d{0,9}$/;
/** Jira and Linear keys share one shape: `PROJECT-123`. The organization's trackers decide which it is. */
const ISSUE_KEY = /^[A-Z][A-Z0-9_]{1,19}-[1-9]\d{0,9}$/;
/** `gerrit:419090` or `gerrit 419090`: a change number; `I` and 40 hex digits: a Change-Id. */
const GERRIT_CHANGE = /^gerrit[:\s]\s*([1-9]\d{0,9})$/i;
const GERRIT_CHANGE_ID = /^I[0-9a-f]{40}$/;
/** `owner/repo#123` (GitHub's and GitLab's issue form) and `group/sub/project!12` (GitLab's merge requests). */
const REPO_ISSUE = /^((?:[A-Za-z0-9_.-]{1,100}\/){1,20}[A-Za-z0-9_.-]{1,100})#([1-9]\d{0,9})$/;
const GITLAB_MERGE_REQUEST = /^((?:[A-Za-z0-9_.-]{1,100}\/){1,20}[A-Za-z0-9_.-]{1,100})!([1-9]\d{0,9})$/;
export const MAX_REFERENCE_LENGTH = LIMITS.shortText * 4;

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function under(base: string | null, path: string): string | null {
  return base ? `${trimSlash(base)}/${path}` : null;
}

function sameOrigin(url: URL, base: string | null): boolean {
  if (!base) return false;
  try {
    return url.origin === new URL(base).origin;
  } catch {
    return false;
  }
}

/**
 * Recognises a tracker reference as people write it and gives it a kind and a canonical URL,
 * using the trackers of the organization it belongs to: Phabricator tasks (`T134456`), Gerrit
 * changes (`gerrit:419090`, a Change-Id, change URLs), GitHub issues and pull requests (URLs and
 * `owner/repo#12`), GitLab issues and merge requests (URLs with `/-/`, `group/project#12` where
 * the organization uses GitLab and not GitHub, `group/sub/project#12`, `group/project!12`), Jira
 * and Linear keys (`OPS-123`: Linear where the organization has Linear and no Jira) and plain
 * http(s) URLs. A shorthand whose tracker the organization has no base for is recognised but gets
 * no URL. Anything else is BAD_USER_INPUT on `field`, so a typo never becomes a link to nowhere.
 *
 * Links are worked out again whenever a reference is read (see `linkReference`), so configuring a
 * tracker later reaches the references stored before.
 */
export function parseExternalReference(raw: string, bases: TrackerBases, field = 'reference'): ExternalReferenceDocument {
  const ref = raw.trim();
  if (ref === '') throw AppError.badField(field, 'must not be empty');
  if (ref.length > MAX_REFERENCE_LENGTH) {
    throw AppError.badField(field, `is ${ref.length} characters long; the limit is ${MAX_REFERENCE_LENGTH}`);
  }
  if (PHABRICATOR_TASK.test(ref)) return { kind: 'phabricator', ref, url: under(bases.phabricator, ref) };
  if (ISSUE_KEY.test(ref)) {
    return bases.linear && !bases.jira ? { kind: 'linear', ref, url: under(bases.linear, `issue/${ref}`) } : { kind: 'jira', ref, url: under(bases.jira, `browse/${ref}`) };
  }
  const change = GERRIT_CHANGE.exec(ref);
  if (change) return { kind: 'gerrit', ref, url: under(bases.gerrit, change[1]!) };
  if (GERRIT_CHANGE_ID.test(ref)) return { kind: 'gerrit', ref, url: under(bases.gerrit, `q/${ref}`) };
  const mr = GITLAB_MERGE_REQUEST.exec(ref);
  if (mr) return { kind: 'gitlab_merge_request', ref, url: under(bases.gitlab, `${mr[1]}/-/merge_requests/${mr[2]}`) };
  const issue = REPO_ISSUE.exec(ref);
  if (issue) {
    const [, path, n] = issue;
    // GitHub paths are exactly owner/repo; deeper ones are GitLab groups.
    const github = path!.split('/').length === 2 && (bases.github !== null || bases.gitlab === null);
    return github
      ? { kind: 'github_issue', ref, url: under(bases.github, `${path}/issues/${n}`) }
      : { kind: 'gitlab_issue', ref, url: under(bases.gitlab, `${path}/-/issues/${n}`) };
  }

  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw unknownShape(field, ref);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '' || url.username || url.password) {
    throw unknownShape(field, ref);
  }
  return recogniseUrl(url, ref, bases);
}

/** Tracker URLs by their shape: the host only matters where the path is not distinctive. */
function recogniseUrl(url: URL, ref: string, bases: TrackerBases): ExternalReferenceDocument {
  const path = url.pathname;
  if (sameOrigin(url, bases.github) || url.hostname === 'github.com') {
    const m = /^\/([^/]+)\/([^/]+)\/(pull|issues)\/([1-9]\d{0,9})(?:\/.*)?$/.exec(path);
    if (m) {
      const [, owner, repo, type, n] = m;
      return { kind: type === 'pull' ? 'github_pull' : 'github_issue', ref, url: `${url.origin}/${owner}/${repo}/${type}/${n}` };
    }
  }
  // GitLab's `/-/` separates a project path of any depth from its pages.
  const gitlab = /^(\/.+?)\/-\/(merge_requests|issues)\/([1-9]\d{0,9})(?:\/.*)?$/.exec(path);
  if (gitlab) {
    const [, project, type, n] = gitlab;
    return { kind: type === 'merge_requests' ? 'gitlab_merge_request' : 'gitlab_issue', ref, url: `${url.origin}${project}/-/${type}/${n}` };
  }
  // Gerrit: `/c/<project>/+/<n>` (the `/+/` is Gerrit's), `/#/c/<n>/`, or a number on the configured host.
  const gerrit = /^(.*?)\/c\/.+?\/\+\/([1-9]\d{0,9})(?:\/.*)?$/.exec(path) ?? (/^#\/c\/([1-9]\d{0,9})/.test(url.hash) ? [null, path.replace(/\/$/, ''), /^#\/c\/(\d+)/.exec(url.hash)![1]] : null);
  if (gerrit) return { kind: 'gerrit', ref, url: `${url.origin}${gerrit[1] ?? ''}/${gerrit[2]}` };
  if (sameOrigin(url, bases.gerrit)) {
    const m = /^(.*?)\/([1-9]\d{0,9})\/?$/.exec(path);
    if (m) return { kind: 'gerrit', ref, url: `${url.origin}${m[1]}/${m[2]}` };
  }
  if (url.hostname === 'linear.app' || sameOrigin(url, bases.linear)) {
    const m = /^\/([^/]+)\/issue\/([A-Z][A-Z0-9_]{1,19}-[1-9]\d{0,9})(?:\/.*)?$/.exec(path);
    if (m) return { kind: 'linear', ref, url: `${url.origin}/${m[1]}/issue/${m[2]}` };
  }
  if (sameOrigin(url, bases.phabricator)) {
    const m = /^\/(T[1-9]\d{0,9})\/?$/.exec(path);
    if (m) return { kind: 'phabricator', ref, url: `${url.origin}/${m[1]}` };
  }
  // `/browse/KEY-12` is Jira's own path, on any host.
  const jira = /^(.*?)\/browse\/([A-Z][A-Z0-9_]{1,19}-[1-9]\d{0,9})\/?$/.exec(path);
  if (jira) return { kind: 'jira', ref, url: `${url.origin}${jira[1]}/browse/${jira[2]}` };
  return { kind: 'url', ref, url: url.toString() };
}

/**
 * A stored reference with its kind and link worked out now, from the trackers its organization
 * has today: references are stored as written, links are not frozen at write time. A stored
 * reference that no longer parses (written under older rules) is shown as it was stored.
 */
export function linkReference<R extends ExternalReferenceDocument>(stored: R, bases: TrackerBases): R {
  try {
    const { kind, url } = parseExternalReference(stored.ref, bases);
    return { ...stored, kind, url };
  } catch {
    return stored;
  }
}

function unknownShape(field: string, ref: string): AppError {
  const shown = ref.length > 60 ? `${ref.slice(0, 57)}…` : ref;
  return AppError.badField(
    field,
    `"${shown}" is not a reference this tracker knows: expected a Phabricator task (T134456), a Gerrit change (gerrit:419090), a GitHub or GitLab issue or pull/merge request (a URL, owner/repo#123, group/project!12), a Jira or Linear key (OPS-123) or an http(s) URL`,
  );
}
