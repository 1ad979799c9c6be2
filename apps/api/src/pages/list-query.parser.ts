import { ACTIONABLE_STATUSES, type ActionableStatus } from '@hindsight/domain';
import { MAX_PAGE_SIZE, type ActionableFilter, type ActionableOrder, type IncidentFilter, type IncidentOrder, type PageArgs } from '@hindsight/incidents';

/** A problem with one form field, shown next to that field. */
export interface FieldError {
  field: string;
  message: string;
}

type Query = Record<string, unknown>;

const DEFAULT_PAGE_SIZE = 20;
const MAX_TEXT = 200;

function values(query: Query, name: string): string[] {
  const raw = query[name];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter((v) => v !== '');
}

function one(query: Query, name: string): string {
  return values(query, name)[0] ?? '';
}

function text(query: Query, name: string, errors: FieldError[]): string {
  const value = one(query, name);
  if (value.length > MAX_TEXT) errors.push({ field: name, message: `Use at most ${MAX_TEXT} characters.` });
  return value.slice(0, MAX_TEXT);
}

function pageSize(query: Query, errors: FieldError[]): number {
  const raw = one(query, 'first');
  if (raw === '') return DEFAULT_PAGE_SIZE;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_PAGE_SIZE) {
    errors.push({ field: 'first', message: `Show from 1 to ${MAX_PAGE_SIZE} per page.` });
    return DEFAULT_PAGE_SIZE;
  }
  return n;
}

export const INCIDENT_LIST_ORDERS = {
  relevance: { order: 'RELEVANCE', label: 'Best match' },
  newest: { order: 'STARTED_AT_DESC', label: 'Newest first' },
  oldest: { order: 'STARTED_AT_ASC', label: 'Oldest first' },
  title: { order: 'TITLE_ASC', label: 'Title A–Z' },
  updated: { order: 'UPDATED_AT_DESC', label: 'Recently updated' },
} as const satisfies Record<string, { order: IncidentOrder; label: string }>;
export type IncidentListOrder = keyof typeof INCIDENT_LIST_ORDERS;

/**
 * The order a list is shown in: the one chosen, or when none is (or best match without words to
 * match), best match for a search and newest first otherwise.
 */
export function incidentOrderInForce(q: string, chosen: IncidentListOrder | ''): IncidentListOrder {
  if (chosen === '' || (chosen === 'relevance' && !q)) return q ? 'relevance' : 'newest';
  return chosen;
}

/** The list form as the reader filled it in, echoed back into the fields. */
export interface IncidentListForm {
  q: string;
  pattern: string[];
  organization: string;
  component: string;
  year: string;
  /** A severity level; filtered as given (an unknown level finds nothing). */
  severity: string;
  tag: string;
  /** 'yes': near misses only; 'no': incidents that affected someone; '': either. */
  nearMiss: '' | 'yes' | 'no';
  /** A follow-up status (`open`, `in_progress`, `done`, `wont_do`): incidents with a follow-up in it; '' for any. */
  followups: '' | ActionableStatus;
  /** The order the reader chose; '' when none was (best match for a search, newest first otherwise). */
  order: IncidentListOrder | '';
  first: number;
  after: string;
}

export interface ParsedIncidentList {
  form: IncidentListForm;
  filter: IncidentFilter;
  page: PageArgs<IncidentOrder>;
  errors: FieldError[];
}

/** GET parameters of `/incidents` → the service's filter; a year becomes [1 Jan, next 1 Jan) in UTC. */
export function parseIncidentListQuery(query: Query): ParsedIncidentList {
  const errors: FieldError[] = [];
  const q = text(query, 'q', errors);
  const organization = text(query, 'organization', errors);
  const component = text(query, 'component', errors);
  const pattern = values(query, 'pattern');
  const severity = text(query, 'severity', errors);
  const tag = text(query, 'tag', errors);
  const nearMissRaw = one(query, 'nearmiss');
  let nearMiss: IncidentListForm['nearMiss'] = '';
  if (nearMissRaw === 'yes' || nearMissRaw === 'no') nearMiss = nearMissRaw;
  else if (nearMissRaw !== '') errors.push({ field: 'nearmiss', message: 'Choose near misses only, incidents that affected someone, or either.' });
  const followupsRaw = one(query, 'followups');
  let followups: IncidentListForm['followups'] = '';
  if (followupsRaw !== '' && (ACTIONABLE_STATUSES as readonly string[]).includes(followupsRaw)) followups = followupsRaw as ActionableStatus;
  else if (followupsRaw !== '') errors.push({ field: 'followups', message: 'Choose one of the listed follow-up statuses, or any.' });
  const year = one(query, 'year');
  let startedFrom: Date | null = null;
  let startedBefore: Date | null = null;
  if (year !== '') {
    const y = Number(year);
    if (!/^\d{4}$/.test(year) || y < 1970 || y > 2100) {
      errors.push({ field: 'year', message: 'Enter a four-digit year, such as 2016.' });
    } else {
      startedFrom = new Date(Date.UTC(y, 0, 1));
      startedBefore = new Date(Date.UTC(y + 1, 0, 1));
    }
  }
  // Unless the reader chose an order, a search lists its best matches first and a list without
  // words newest first, so a search typed into the form of an unsearched list is ranked too.
  // "Best match" without words means nothing: it falls back to newest first, not to a refusal.
  const orderRaw = one(query, 'order');
  let chosen: IncidentListOrder | '' = '';
  if (orderRaw in INCIDENT_LIST_ORDERS) chosen = orderRaw as IncidentListOrder;
  else if (orderRaw !== '') errors.push({ field: 'order', message: 'Choose one of the listed orders.' });
  const order = incidentOrderInForce(q, chosen);
  const first = pageSize(query, errors);
  const after = one(query, 'after');
  return {
    form: { q, pattern, organization, component, year, severity, tag, nearMiss, followups, order: chosen, first, after },
    filter: {
      text: q || null,
      patterns: pattern.length > 0 ? pattern : null,
      organization: organization || null,
      component: component || null,
      startedFrom,
      startedBefore,
      severity: severity ? [severity] : null,
      tags: tag ? [tag] : null,
      nearMiss: nearMiss === '' ? null : nearMiss === 'yes',
      actionableStatus: followups === '' ? null : [followups],
    },
    page: { first, after: after || null, orderBy: INCIDENT_LIST_ORDERS[order].order },
    errors,
  };
}

export const ACTIONABLE_STATUS_CHOICES = {
  unresolved: { statuses: ['open', 'in_progress'], label: 'Open or in progress' },
  open: { statuses: ['open'], label: 'Open' },
  in_progress: { statuses: ['in_progress'], label: 'In progress' },
  done: { statuses: ['done'], label: 'Done' },
  wont_do: { statuses: ['wont_do'], label: 'Won’t do' },
  any: { statuses: [], label: 'Any status' },
} as const satisfies Record<string, { statuses: readonly ActionableStatus[]; label: string }>;
export type ActionableStatusChoice = keyof typeof ACTIONABLE_STATUS_CHOICES;

export const ACTIONABLE_LIST_ORDERS = {
  due: { order: 'DUE_DATE_ASC', label: 'Due soonest' },
  updated: { order: 'UPDATED_AT_DESC', label: 'Recently updated' },
  created: { order: 'CREATED_AT_ASC', label: 'Oldest first' },
} as const satisfies Record<string, { order: ActionableOrder; label: string }>;
export type ActionableListOrder = keyof typeof ACTIONABLE_LIST_ORDERS;

export interface ActionableListForm {
  owner: string;
  status: ActionableStatusChoice;
  overdue: boolean;
  order: ActionableListOrder;
  first: number;
  after: string;
}

export interface ParsedActionableList {
  form: ActionableListForm;
  filter: ActionableFilter;
  page: PageArgs<ActionableOrder>;
  errors: FieldError[];
}

/** GET parameters of `/actionables`; by default the follow-ups still open or in progress. */
export function parseActionableListQuery(query: Query): ParsedActionableList {
  const errors: FieldError[] = [];
  const owner = text(query, 'owner', errors);
  const statusRaw = one(query, 'status') || 'unresolved';
  let status: ActionableStatusChoice = 'unresolved';
  if (statusRaw in ACTIONABLE_STATUS_CHOICES) status = statusRaw as ActionableStatusChoice;
  else errors.push({ field: 'status', message: 'Choose one of the listed statuses.' });
  const overdueRaw = one(query, 'overdue');
  if (overdueRaw !== '' && overdueRaw !== 'yes') errors.push({ field: 'overdue', message: 'Tick the box or leave it empty.' });
  const overdue = overdueRaw === 'yes';
  const orderRaw = one(query, 'order') || 'due';
  let order: ActionableListOrder = 'due';
  if (orderRaw in ACTIONABLE_LIST_ORDERS) order = orderRaw as ActionableListOrder;
  else errors.push({ field: 'order', message: 'Choose one of the listed orders.' });
  const first = pageSize(query, errors);
  const after = one(query, 'after');
  const statuses = ACTIONABLE_STATUS_CHOICES[status].statuses;
  return {
    form: { owner, status, overdue, order, first, after },
    filter: { owner: owner || null, status: statuses.length > 0 ? [...statuses] : null, overdue: overdue ? true : null },
    page: { first, after: after || null, orderBy: ACTIONABLE_LIST_ORDERS[order].order },
    errors,
  };
}

/** `/patterns/:key` only pages; it has no other filters. */
export function parsePageQuery(query: Query): { first: number; after: string; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const first = pageSize(query, errors);
  return { first, after: one(query, 'after'), errors };
}

/** A URL with the given parameters, skipping empty ones; used for pager and filter links. */
export function withQuery(path: string, params: Record<string, string | readonly string[] | number | boolean | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === null || value === undefined || value === '' || value === false) continue;
    if (Array.isArray(value)) for (const v of value) search.append(name, String(v));
    else search.append(name, value === true ? 'yes' : String(value));
  }
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}
