import type { ExternalReferenceDocument, ReferenceKind } from '@hindsight/domain';
import type { TrackerBases } from './importer.types';

export const DEFAULT_PHABRICATOR = 'https://phabricator.wikimedia.org';

// Uppercase words with a number that are standards or units, not Jira keys.
const NOT_JIRA = new Set([
  'UTF', 'ISO', 'SHA', 'MD', 'GMT', 'UTC', 'HTTP', 'HTTPS', 'TLS', 'SSL', 'RFC', 'CVE', 'IPV', 'PEP', 'ES', 'COVID', 'IEEE', 'ECMA',
  'AES', 'RSA', 'TCP', 'UDP', 'IP', 'DNS', 'API', 'CPU', 'GPU', 'RAM', 'SEV', 'P', 'X', 'AWS', 'GCP', 'EC', 'RDS', 'PR', 'MR', 'CR',
  'WIN', 'GPT', 'H', 'HD', 'USB', 'PCI', 'ARM', 'AMD', 'SQL', 'PHP', 'HHVM', 'MCS', 'LVS', 'RB', 'BST', 'PST', 'PDT', 'EST', 'EDT',
]);

const trimBase = (base: string) => base.replace(/\/+$/, '');
/** Characters a sentence adds after a bare URL that are not part of it. */
function trimUrl(url: string): string {
  // A loop rather than a `(…)+$` regex, which is quadratic on a long tail of punctuation.
  const trailing = new Set([...'.,;:!?\'"”’*_']);
  let opened = 0;
  let closed = 0;
  for (const c of url) {
    if (c === '(') opened++;
    else if (c === ')') closed++;
  }
  let end = url.length;
  for (;;) {
    if (end > 0 && trailing.has(url[end - 1])) end--;
    else if (end > 0 && url[end - 1] === ')' && closed > opened) {
      end--;
      closed--;
    } else break;
  }
  return url.slice(0, end);
}

function classifyUrl(url: string): { kind: ReferenceKind } {
  if (/^https?:\/\/(www\.)?github\.com\/[^/\s]+\/[^/\s]+\/pull\/\d+/i.test(url)) return { kind: 'github_pull' };
  if (/^https?:\/\/(www\.)?github\.com\/[^/\s]+\/[^/\s]+\/issues\/\d+/i.test(url)) return { kind: 'github_issue' };
  if (/^https?:\/\/phabricator\.[^/\s]+\/T\d+/i.test(url)) return { kind: 'phabricator' };
  if (/^https?:\/\/[^/\s]+\/browse\/[A-Z][A-Z0-9]+-\d+/.test(url)) return { kind: 'jira' };
  return { kind: 'url' };
}

/**
 * The link to store: a GitHub pull request or issue without the tab or anchor it was copied
 * with (`…/pull/604/files` → `…/pull/604`), other URLs as the URL parser normalises them.
 */
function canonicalUrl(url: string): string {
  const github = /^https?:\/\/(?:www\.)?github\.com\/([^/\s]+)\/([^/\s]+)\/(pull|issues)\/(\d+)/i.exec(url);
  if (github) return `https://github.com/${github[1]}/${github[2]}/${github[3]}/${github[4]}`;
  try {
    return new URL(url).toString();
  } catch {
    return url;
  }
}

const PRIORITY: Record<ReferenceKind, number> = { github_pull: 0, github_issue: 0, phabricator: 0, jira: 0, gerrit: 0, gitlab_issue: 0, gitlab_merge_request: 0, linear: 0, url: 1 };

/**
 * The references an actionable carries: URLs (GitHub pull requests and issues recognised),
 * Phabricator tasks (`T123456`, `{T123456}`), Jira keys (`OPS-123`), GitHub issue numbers
 * (`#1234`, `acme/api#12`). `ref` is the text as written; `url` is filled from the configured
 * tracker bases when the text alone is not a link. Trackers are listed before plain links, in
 * order of appearance within each group.
 */
export function extractReferences(text: string, trackers: TrackerBases = {}): ExternalReferenceDocument[] {
  const found: (ExternalReferenceDocument & { index: number })[] = [];
  const seen = new Set<string>();
  // Characters inside a reference already found (a task id inside a URL is not another one).
  const taken = new Uint8Array(text.length);
  const overlaps = (start: number, end: number) => taken.subarray(start, end).some((c) => c === 1);
  const add = (index: number, length: number, reference: ExternalReferenceDocument) => {
    taken.fill(1, index, index + length);
    const id = `${reference.kind} ${reference.ref}`;
    if (!seen.has(id)) {
      seen.add(id);
      found.push({ ...reference, index });
    }
  };

  // A Markdown link is one reference: "[#418](…/issues/418)" is not also the bare "#418".
  for (const m of text.matchAll(/\[([^\][]{0,300})\]\((https?:\/\/[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)\)/g)) {
    const url = trimUrl(m[2]);
    add(m.index ?? 0, m[0].length, { kind: classifyUrl(url).kind, ref: url, url: canonicalUrl(url) });
  }
  for (const m of text.matchAll(/https?:\/\/[^\s<>"\]|]+/g)) {
    if (overlaps(m.index ?? 0, (m.index ?? 0) + m[0].length)) continue;
    const url = trimUrl(m[0]);
    add(m.index ?? 0, m[0].length, { kind: classifyUrl(url).kind, ref: url, url: canonicalUrl(url) });
  }
  const phabricator = trimBase(trackers.phabricator ?? DEFAULT_PHABRICATOR);
  for (const m of text.matchAll(/(?<![\w/#.-])\{?(T\d{3,9})\}?(?![\w-])/g)) {
    const index = m.index ?? 0;
    if (overlaps(index, index + m[0].length)) continue;
    add(index, m[0].length, { kind: 'phabricator', ref: m[1], url: `${phabricator}/${m[1]}` });
  }
  for (const m of text.matchAll(/(?<![\w/.#-])([A-Z][A-Z0-9]{1,9})-(\d{1,7})(?![\w-])/g)) {
    const index = m.index ?? 0;
    if (NOT_JIRA.has(m[1]) || overlaps(index, index + m[0].length)) continue;
    const ref = `${m[1]}-${m[2]}`;
    add(index, m[0].length, { kind: 'jira', ref, url: trackers.jira ? `${trimBase(trackers.jira)}/browse/${ref}` : null });
  }
  // Two patterns, each starting only where a token starts, so long runs of "a.a.a" stay linear.
  for (const m of text.matchAll(/(?<![\w./-])([\w.-]+\/[\w.-]+)#(\d{1,7})(?![\w-])/g)) {
    const index = m.index ?? 0;
    if (overlaps(index, index + m[0].length)) continue;
    add(index, m[0].length, { kind: 'github_issue', ref: m[0], url: `https://github.com/${m[1]}/issues/${m[2]}` });
  }
  // Gerrit changes: "gerrit:419090", "Gerrit change 419090"; a URL only with a configured base.
  const gerrit = trackers.gerrit ? trimBase(trackers.gerrit) : null;
  for (const m of text.matchAll(/(?<![\w/.-])gerrit(?::\s?|\s+change\s+)(\d{3,9})(?![\w-])/gi)) {
    const index = m.index ?? 0;
    if (overlaps(index, index + m[0].length)) continue;
    add(index, m[0].length, { kind: 'url', ref: `gerrit:${m[1]}`, url: gerrit ? `${gerrit}/c/${m[1]}` : null });
  }
  const repository = trackers.github ? trimBase(trackers.github) : null;
  for (const m of text.matchAll(/(?<![\w&/#.-])#(\d{1,7})(?![\w-])/g)) {
    const index = m.index ?? 0;
    if (overlaps(index, index + m[0].length)) continue;
    add(index, m[0].length, { kind: 'github_issue', ref: m[0], url: repository ? `${repository}/issues/${m[1]}` : null });
  }
  return found
    .sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind] || a.index - b.index)
    .map(({ kind, ref, url }) => ({ kind, ref, url }));
}
