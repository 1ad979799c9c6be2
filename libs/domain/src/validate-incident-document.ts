import { AppError, echo, type FieldProblem } from './app-error';
import { ISO_INSTANT_EXAMPLE, parseIsoInstant } from './iso-instant';
import {
  ACTIONABLE_STATUSES,
  CAUSAL_LINK_KINDS,
  FACTOR_ROLES,
  REFERENCE_KINDS,
  TIME_PRECISIONS,
  TIMELINE_EVENT_KINDS,
  type IncidentDocument,
} from './incident-document';
import { MAX_IMPACT_MINUTES, TAG_LIMITS, normalizeTag, normalizeTags } from './incident-metadata';

export const LIMITS = {
  slug: 120,
  title: 300,
  shortText: 300,
  text: 20_000,
  narrative: 200_000,
  listItems: 1_000,
} as const;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const KEY = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Json = unknown;

/**
 * Checks a parsed JSON value against `IncidentDocument` and returns it typed. Every problem is
 * collected with its path, so an author fixes a seed or an import in one pass.
 */
export function validateIncidentDocument(value: Json, where = ''): IncidentDocument {
  const problems: FieldProblem[] = [];
  const at = (path: string) => (where ? `${where}.${path}` : path);
  const fail = (path: string, reason: string) => problems.push({ field: at(path), reason });

  const str = (v: Json, path: string, max: number, opts: { nullable?: boolean; empty?: boolean } = {}) => {
    if (v === null && opts.nullable) return;
    if (typeof v !== 'string') return fail(path, `expected ${opts.nullable ? 'a string or null' : 'a string'}`);
    if (!opts.empty && v.trim() === '') return fail(path, 'must not be empty');
    if (v.length > max) fail(path, `is ${v.length} characters long; the limit is ${max}`);
  };
  const oneOf = (v: Json, path: string, allowed: readonly string[]) => {
    if (typeof v !== 'string' || !allowed.includes(v)) fail(path, `expected one of ${allowed.join(', ')}; got ${echo(v)}`);
  };
  const instant = (v: Json, path: string) => {
    if (v === null) return;
    if (typeof v !== 'string' || parseIsoInstant(v) === null) {
      fail(path, `expected an ISO 8601 instant with a zone, on a real calendar day (${ISO_INSTANT_EXAMPLE}), or null; got ${echo(v)}`);
    }
  };
  // Pages turn these into links: only http(s), never javascript: or data:.
  const webUrl = (v: Json, path: string) => {
    if (typeof v === 'string' && !/^https?:\/\/[^\s/]+/i.test(v)) fail(path, `expected an http(s) URL; got ${echo(v)}`);
  };
  const list = (v: Json, path: string): Json[] => {
    if (!Array.isArray(v)) {
      fail(path, 'expected an array');
      return [];
    }
    if (v.length > LIMITS.listItems) fail(path, `has ${v.length} items; the limit is ${LIMITS.listItems}`);
    return v;
  };
  const obj = (v: Json, path: string): Record<string, Json> => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      fail(path, 'expected an object');
      return {};
    }
    return v as Record<string, Json>;
  };
  const uniqueKeys = (items: Record<string, Json>[], path: string) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const key = item.key;
      if (typeof key !== 'string' || !KEY.test(key)) {
        fail(`${path}[${i}].key`, 'expected a lower-case key of letters, digits and dashes');
      } else if (key.length > LIMITS.slug) {
        fail(`${path}[${i}].key`, `is ${key.length} characters long; the limit is ${LIMITS.slug}`);
      } else if (seen.has(key)) {
        fail(`${path}[${i}].key`, `duplicate key "${key}"`);
      } else {
        seen.add(key);
      }
    });
    return seen;
  };

  const doc = obj(value, '');
  if (typeof doc.slug !== 'string' || !SLUG.test(doc.slug) || doc.slug.length > LIMITS.slug) {
    fail('slug', 'expected lower-case words joined by dashes (at most 120 characters)');
  }
  str(doc.title, 'title', LIMITS.title);
  // Null when the source does not say: unknown stays empty rather than a placeholder.
  str(doc.organization, 'organization', LIMITS.shortText, { nullable: true });
  list(doc.components, 'components').forEach((c, i) => str(c, `components[${i}]`, LIMITS.shortText));
  str(doc.summary, 'summary', LIMITS.text);
  str(doc.narrative, 'narrative', LIMITS.narrative, { empty: true });
  str(doc.impact, 'impact', LIMITS.text, { empty: true });
  list(doc.patterns, 'patterns').forEach((p, i) => {
    if (typeof p !== 'string' || !KEY.test(p) || p.length > LIMITS.slug) fail(`patterns[${i}]`, 'expected a pattern key');
  });
  const source = obj(doc.source, 'source');
  str(source.title, 'source.title', LIMITS.title);
  str(source.url, 'source.url', LIMITS.shortText * 4, { nullable: true });
  webUrl(source.url, 'source.url');
  if (typeof source.language !== 'string' || !/^[a-z]{2,3}(?:-[A-Za-z0-9]+)*$/.test(source.language)) {
    fail('source.language', 'expected a BCP 47 language tag such as "en" or "vi"');
  }
  if (source.originalText !== undefined) str(source.originalText, 'source.originalText', LIMITS.text, { nullable: true });
  const keyTimes = obj(doc.keyTimes, 'keyTimes');
  for (const name of ['started', 'detected', 'mitigated', 'resolved']) {
    const t = keyTimes[name];
    if (t === null || t === undefined) continue;
    const tv = obj(t, `keyTimes.${name}`);
    instant(tv.at, `keyTimes.${name}.at`);
    oneOf(tv.precision, `keyTimes.${name}.precision`, TIME_PRECISIONS);
  }

  const timeline = list(doc.timeline, 'timeline').map((e, i) => obj(e, `timeline[${i}]`));
  uniqueKeys(timeline, 'timeline');
  timeline.forEach((e, i) => {
    str(e.asWritten, `timeline[${i}].asWritten`, LIMITS.shortText, { nullable: true });
    instant(e.at, `timeline[${i}].at`);
    oneOf(e.precision, `timeline[${i}].precision`, TIME_PRECISIONS);
    if (e.at === null && e.precision !== 'none') fail(`timeline[${i}].precision`, 'an event without a time must have precision "none"');
    if (e.at !== null && e.precision === 'none') fail(`timeline[${i}].precision`, 'an event with a time needs a precision other than "none"');
    oneOf(e.kind, `timeline[${i}].kind`, TIMELINE_EVENT_KINDS);
    str(e.text, `timeline[${i}].text`, LIMITS.text);
  });

  const factors = list(doc.causalFactors, 'causalFactors').map((f, i) => obj(f, `causalFactors[${i}]`));
  const factorKeys = uniqueKeys(factors, 'causalFactors');
  factors.forEach((f, i) => {
    if (f.title !== undefined) str(f.title, `causalFactors[${i}].title`, LIMITS.shortText, { nullable: true });
    oneOf(f.role, `causalFactors[${i}].role`, FACTOR_ROLES);
    str(f.component, `causalFactors[${i}].component`, LIMITS.shortText, { nullable: true });
    str(f.text, `causalFactors[${i}].text`, LIMITS.text);
  });
  list(doc.causalLinks, 'causalLinks').forEach((l, i) => {
    const link = obj(l, `causalLinks[${i}]`);
    for (const end of ['from', 'to'] as const) {
      if (typeof link[end] !== 'string' || !factorKeys.has(link[end] as string)) {
        fail(`causalLinks[${i}].${end}`, `expected the key of a causal factor of this incident; got ${echo(link[end])}`);
      }
    }
    oneOf(link.kind, `causalLinks[${i}].kind`, CAUSAL_LINK_KINDS);
  });

  const actionables = list(doc.actionables, 'actionables').map((a, i) => obj(a, `actionables[${i}]`));
  uniqueKeys(actionables, 'actionables');
  actionables.forEach((a, i) => {
    const p = `actionables[${i}]`;
    str(a.title, `${p}.title`, LIMITS.title);
    str(a.description, `${p}.description`, LIMITS.text, { empty: true });
    str(a.owner, `${p}.owner`, LIMITS.shortText, { nullable: true });
    oneOf(a.status, `${p}.status`, ACTIONABLE_STATUSES);
    if (a.dueDate !== null && (typeof a.dueDate !== 'string' || !DATE.test(a.dueDate) || parseIsoInstant(`${a.dueDate}T00:00:00Z`) === null)) {
      fail(`${p}.dueDate`, `expected a calendar date YYYY-MM-DD or null; got ${echo(a.dueDate)}`);
    }
    const refs = new Set<string>();
    list(a.references, `${p}.references`).forEach((r, j) => {
      const ref = obj(r, `${p}.references[${j}]`);
      oneOf(ref.kind, `${p}.references[${j}].kind`, REFERENCE_KINDS);
      str(ref.ref, `${p}.references[${j}].ref`, LIMITS.shortText * 4);
      str(ref.url, `${p}.references[${j}].url`, LIMITS.shortText * 4, { nullable: true });
      webUrl(ref.url, `${p}.references[${j}].url`);
      if (typeof ref.ref === 'string') {
        if (refs.has(ref.ref)) fail(`${p}.references[${j}].ref`, `duplicate reference "${ref.ref}"`);
        refs.add(ref.ref);
      }
    });
    list(a.addresses, `${p}.addresses`).forEach((k, j) => {
      if (typeof k !== 'string' || !factorKeys.has(k)) fail(`${p}.addresses[${j}]`, `expected the key of a causal factor; got ${echo(k)}`);
    });
  });

  // Metadata: optional, so documents written before it existed stay valid.
  if (doc.severity !== undefined) str(doc.severity, 'severity', 30, { nullable: true });
  if (doc.nearMiss !== undefined && typeof doc.nearMiss !== 'boolean') fail('nearMiss', `expected true or false; got ${echo(doc.nearMiss)}`);
  let tags: string[] | undefined;
  if (doc.tags !== undefined) {
    const raw = list(doc.tags, 'tags');
    raw.forEach((t, i) => {
      if (typeof t !== 'string') fail(`tags[${i}]`, 'expected a string');
      else if (normalizeTag(t) === '') fail(`tags[${i}]`, 'needs a letter or digit');
      else if (normalizeTag(t).length > TAG_LIMITS.length) fail(`tags[${i}]`, `is longer than ${TAG_LIMITS.length} characters`);
    });
    tags = normalizeTags(raw.filter((t): t is string => typeof t === 'string'));
    if (tags.length > TAG_LIMITS.tags) fail('tags', `at most ${TAG_LIMITS.tags} distinct tags; got ${tags.length}`);
  }
  if (doc.customerImpact !== undefined && doc.customerImpact !== null) {
    const impact = obj(doc.customerImpact, 'customerImpact');
    const minutes = impact.minutes;
    if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 0 || minutes > MAX_IMPACT_MINUTES) {
      fail('customerImpact.minutes', `expected whole minutes from 0 to ${MAX_IMPACT_MINUTES}; got ${echo(minutes)}`);
    }
    oneOf(impact.precision, 'customerImpact.precision', TIME_PRECISIONS.filter((p) => p !== 'none'));
  }

  if (problems.length > 0) throw AppError.badInput(problems);
  return (tags === undefined ? value : { ...(value as object), tags }) as IncidentDocument;
}
