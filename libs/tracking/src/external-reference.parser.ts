import { AppError, LIMITS, type ExternalReferenceDocument } from '@hindsight/domain';
import type { TrackerBases } from './tracking-options';

const PHABRICATOR_TASK = /^T[1-9]\d{0,9}$/;
const JIRA_KEY = /^[A-Z][A-Z0-9_]{1,19}-[1-9]\d{0,9}$/;
/** `owner/repo#123`: GitHub's own short form; it does not say whether it is an issue or a pull. */
const GITHUB_SHORT = /^([A-Za-z0-9-]{1,39})\/([A-Za-z0-9._-]{1,100})#([1-9]\d{0,9})$/;
export const MAX_REFERENCE_LENGTH = LIMITS.shortText * 4;

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function sameOrigin(url: URL, base: string): boolean {
  try {
    return url.origin === new URL(base).origin;
  } catch {
    return false;
  }
}

/**
 * Recognises a tracker reference as people write it and gives it a kind and a canonical URL:
 * Phabricator tasks (`T134456`), GitHub issue and pull request URLs (and `owner/repo#12`), Jira
 * keys (`OPS-123`) and plain http(s) URLs. Anything else is BAD_USER_INPUT on `field`, so a
 * typo never becomes a link to nowhere.
 */
export function parseExternalReference(raw: string, bases: TrackerBases, field = 'reference'): ExternalReferenceDocument {
  const ref = raw.trim();
  if (ref === '') throw AppError.badField(field, 'must not be empty');
  if (ref.length > MAX_REFERENCE_LENGTH) {
    throw AppError.badField(field, `is ${ref.length} characters long; the limit is ${MAX_REFERENCE_LENGTH}`);
  }
  if (PHABRICATOR_TASK.test(ref)) return { kind: 'phabricator', ref, url: `${trimSlash(bases.phabricator)}/${ref}` };
  if (JIRA_KEY.test(ref)) return { kind: 'jira', ref, url: bases.jira ? `${trimSlash(bases.jira)}/browse/${ref}` : null };
  const short = GITHUB_SHORT.exec(ref);
  if (short) {
    const [, owner, repo, n] = short;
    return { kind: 'github_issue', ref, url: `${trimSlash(bases.github)}/${owner}/${repo}/issues/${n}` };
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
  if (sameOrigin(url, bases.github)) {
    const m = /^\/([^/]+)\/([^/]+)\/(pull|issues)\/([1-9]\d{0,9})(?:\/.*)?$/.exec(url.pathname);
    if (m) {
      const [, owner, repo, type, n] = m;
      return {
        kind: type === 'pull' ? 'github_pull' : 'github_issue',
        ref,
        url: `${trimSlash(bases.github)}/${owner}/${repo}/${type}/${n}`,
      };
    }
  }
  if (sameOrigin(url, bases.phabricator)) {
    const m = /^\/(T[1-9]\d{0,9})\/?$/.exec(url.pathname);
    if (m) return { kind: 'phabricator', ref, url: `${trimSlash(bases.phabricator)}/${m[1]}` };
  }
  if (bases.jira && sameOrigin(url, bases.jira)) {
    const m = /\/browse\/([A-Z][A-Z0-9_]{1,19}-[1-9]\d{0,9})\/?$/.exec(url.pathname);
    if (m) return { kind: 'jira', ref, url: `${trimSlash(bases.jira)}/browse/${m[1]}` };
  }
  return { kind: 'url', ref, url: url.toString() };
}

function unknownShape(field: string, ref: string): AppError {
  const shown = ref.length > 60 ? `${ref.slice(0, 57)}…` : ref;
  return AppError.badField(
    field,
    `"${shown}" is not a reference this tracker knows: expected a Phabricator task (T134456), a GitHub issue or pull request URL, owner/repo#123, a Jira key (OPS-123) or an http(s) URL`,
  );
}
