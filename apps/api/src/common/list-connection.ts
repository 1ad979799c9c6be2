import { AppError } from '@hindsight/domain';
import type { Page } from '@hindsight/incidents';
import { toConnection } from './page-info.type';

export const MAX_PAGE = 100;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * A page of a list the API holds whole (small tables: the pattern taxonomy, API tokens), for
 * connections that page both ways. Cursors name the ordering and the item's key, so a cursor of
 * another ordering, or of nothing in the list, is refused. Hand-written: the keyset connections
 * of libs/incidents page SQL, and graphql-relay's connectionFromArray uses offset cursors, which
 * shift when an item is added or removed between two pages.
 */
export function pageOfList<T>(items: readonly T[], keyOf: (item: T) => string, order: string, args: PageArgs): Page<T> {
  const { first, after, last, before } = args;
  if (first != null && last != null) throw AppError.badField('last', 'pass first (forward) or last (backward), not both');
  for (const [name, value] of [['first', first], ['last', last]] as const) {
    if (value != null && (!Number.isInteger(value) || value < 0 || value > MAX_PAGE)) throw AppError.badField(name, `must be an integer from 0 to ${MAX_PAGE}; got ${value}`);
  }
  const keys = items.map(keyOf);
  let start = 0;
  let end = items.length;
  if (after != null) start = positionOf(after, keys, order, 'after') + 1;
  if (before != null) end = Math.min(end, positionOf(before, keys, order, 'before'));
  if (end < start) end = start;
  let from = start;
  let to = end;
  if (last != null) from = Math.max(start, end - last);
  else to = Math.min(end, start + (first ?? 20));
  const nodes = items.slice(from, to);
  return {
    nodes,
    cursors: nodes.map((n) => cursorOf(order, keyOf(n))),
    // The list is whole in memory: its count and estimate are exact and free.
    count: () => Promise.resolve(items.length),
    estimate: () => Promise.resolve(items.length),
    // Whether the list holds items past either end of this page, cursors or not (as the keyset
    // connections of libs/incidents answer).
    hasNextPage: to < items.length,
    hasPreviousPage: from > 0,
  };
}

function cursorOf(order: string, key: string): string {
  return Buffer.from(JSON.stringify([order, key]), 'utf8').toString('base64url');
}

function positionOf(cursor: string, keys: string[], order: string, field: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') {
    throw AppError.badField(field, 'malformed cursor: pass a cursor returned by this API');
  }
  if (parsed[0] !== order) throw AppError.badField(field, `the cursor belongs to the ordering ${parsed[0]}, not ${order}`);
  const at = keys.indexOf(parsed[1]);
  if (at < 0) throw AppError.badField(field, 'the cursor names an item that is no longer in the list');
  return at;
}

/**
 * The connection of a list held whole: its totalCount is the list's length, a plain value (the
 * list is in memory, so counting costs nothing and needs no resolver of its own).
 */
export function listConnection<T>(items: readonly T[], keyOf: (item: T) => string, order: string, args: PageArgs) {
  return { ...toConnection(pageOfList(items, keyOf, order, args)), totalCount: items.length };
}
