import { AppError, LIMITS, type ExternalReferenceDocument, type FieldProblem } from '@hindsight/domain';
import { parseExternalReference } from './external-reference.parser';
import type { TrackerBases } from './tracking-options';
import { ACTIONABLE_PRIORITIES, type ActionablePatch, type ActionablePriority } from './tracking.types';

export const MAX_REFERENCES = 50;
export const MAX_ADDRESSED_FACTORS = 100;
export const MAX_KEY_LENGTH = 120;
export const KEY = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A patch whose every field has been checked and converted to what the database stores. */
export interface CheckedActionablePatch {
  title?: string;
  description?: string;
  owner?: string | null;
  /** Names as sent; resolved to rows inside the write's transaction. */
  ownerAccount?: string | null;
  ownerTeam?: string | null;
  dueDate?: Date | null;
  priority?: ActionablePriority | null;
  addresses?: string[];
  references?: ExternalReferenceDocument[];
}

/**
 * A calendar date `YYYY-MM-DD` as midnight UTC, or null when the text is not a real date.
 * Stricter than `Date.parse`, which turns 2026-02-30 into March 2nd.
 */
export function parseCalendarDate(text: string): Date | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const date = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) return null;
  const year = Number(m[1]);
  return year >= 1900 && year <= 9999 ? date : null;
}

export function formatCalendarDate(date: Date | null): string | null {
  return date ? date.toISOString().slice(0, 10) : null;
}

/**
 * Checks every field of a patch and reports all problems at once (paths relative to `prefix`),
 * so a client fixes a form in one round trip. Explicit nulls clear nullable fields; absent
 * fields are left alone.
 */
export function checkActionablePatch(patch: ActionablePatch, trackers: TrackerBases, prefix = ''): CheckedActionablePatch {
  const problems: FieldProblem[] = [];
  const at = (name: string) => `${prefix}${name}`;
  const out: CheckedActionablePatch = {};
  const has = (name: keyof ActionablePatch) => Object.prototype.hasOwnProperty.call(patch, name) && patch[name] !== undefined;

  if (has('title')) {
    const title = patch.title as unknown;
    if (typeof title !== 'string' || title.trim() === '') problems.push({ field: at('title'), reason: 'must not be empty' });
    else if (title.length > LIMITS.title) problems.push({ field: at('title'), reason: `is ${title.length} characters long; the limit is ${LIMITS.title}` });
    else out.title = title.trim();
  }
  if (has('description')) {
    const description = patch.description as unknown;
    if (typeof description !== 'string') problems.push({ field: at('description'), reason: 'expected a string; use "" for none' });
    else if (description.length > LIMITS.text) {
      problems.push({ field: at('description'), reason: `is ${description.length} characters long; the limit is ${LIMITS.text}` });
    } else out.description = description;
  }
  if (has('owner')) {
    const owner = patch.owner ?? null;
    if (owner === null || owner.trim() === '') out.owner = null;
    else if (owner.length > LIMITS.shortText) problems.push({ field: at('owner'), reason: `is ${owner.length} characters long; the limit is ${LIMITS.shortText}` });
    else out.owner = owner.trim();
  }
  const owners = (['owner', 'ownerAccount', 'ownerTeam'] as const).filter((name) => has(name));
  if (owners.length > 1) {
    problems.push({ field: at(owners[1]!), reason: `a follow-up has one owner: set one of owner (free text), ownerAccount or ownerTeam, not ${owners.join(' and ')}` });
  }
  for (const name of ['ownerAccount', 'ownerTeam'] as const) {
    if (!has(name)) continue;
    const value = patch[name] ?? null;
    if (value === null || value.trim() === '') out[name] = null;
    else if (value.length > LIMITS.shortText) problems.push({ field: at(name), reason: `is ${value.length} characters long; the limit is ${LIMITS.shortText}` });
    else out[name] = value.trim();
  }
  if (has('dueDate')) {
    if (patch.dueDate === null) out.dueDate = null;
    else {
      const date = parseCalendarDate(String(patch.dueDate));
      if (!date) problems.push({ field: at('dueDate'), reason: `expected a calendar date YYYY-MM-DD; got ${JSON.stringify(patch.dueDate)}` });
      else out.dueDate = date;
    }
  }
  if (has('priority')) {
    const priority = patch.priority;
    if (priority !== null && !ACTIONABLE_PRIORITIES.includes(priority as ActionablePriority)) {
      problems.push({ field: at('priority'), reason: `expected one of ${ACTIONABLE_PRIORITIES.join(', ')} or null` });
    } else out.priority = priority ?? null;
  }
  if (has('addresses')) {
    const keys = patch.addresses as unknown;
    if (!Array.isArray(keys)) problems.push({ field: at('addresses'), reason: 'expected a list of causal factor keys' });
    else if (keys.length > MAX_ADDRESSED_FACTORS) problems.push({ field: at('addresses'), reason: `has ${keys.length} items; the limit is ${MAX_ADDRESSED_FACTORS}` });
    else {
      const seen = new Set<string>();
      keys.forEach((key: unknown, i) => {
        if (typeof key !== 'string' || !KEY.test(key)) problems.push({ field: at(`addresses[${i}]`), reason: 'expected a causal factor key' });
        else if (seen.has(key)) problems.push({ field: at(`addresses[${i}]`), reason: `duplicate factor "${key}"` });
        else seen.add(key);
      });
      out.addresses = [...seen];
    }
  }
  if (has('references')) {
    const refs = patch.references as unknown;
    if (!Array.isArray(refs)) problems.push({ field: at('references'), reason: 'expected a list of references' });
    else if (refs.length > MAX_REFERENCES) problems.push({ field: at('references'), reason: `has ${refs.length} items; the limit is ${MAX_REFERENCES}` });
    else {
      const parsed: ExternalReferenceDocument[] = [];
      refs.forEach((raw: unknown, i) => {
        const field = at(`references[${i}]`);
        try {
          const ref = parseExternalReference(typeof raw === 'string' ? raw : '', trackers, field);
          const duplicate = parsed.find((p) => p.ref === ref.ref || (p.url !== null && p.url === ref.url));
          if (duplicate) problems.push({ field, reason: `duplicate of "${duplicate.ref}"` });
          else parsed.push(ref);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          problems.push({ field, reason: String((error.details.problems as FieldProblem[] | undefined)?.[0]?.reason ?? error.message) });
        }
      });
      out.references = parsed;
    }
  }
  if (problems.length > 0) throw AppError.badInput(problems);
  return out;
}

/** A key for a new actionable from its title: `Raise the HAProxy limit!` → `raise-the-haproxy-limit`. */
export function keyFromTitle(title: string): string {
  const key = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return key === '' ? 'actionable' : key;
}
