import { AppError } from '@hindsight/domain';

/**
 * Opaque Relay cursors for keyset pagination: the sort value and the id of the last row seen,
 * tagged with the ordering they belong to so a cursor cannot be replayed under another order
 * (forward or backward: both directions of one ordering share its cursors).
 */
export interface CursorValue {
  order: string;
  value: string;
  id: string;
}

export const MAX_PAGE_SIZE = 100;

export function encodeCursor(cursor: CursorValue): string {
  return Buffer.from(JSON.stringify([cursor.order, cursor.value, cursor.id]), 'utf8').toString('base64url');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function decodeCursor(raw: string, expectedOrder: string, field = 'after'): CursorValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw AppError.badField(field, 'malformed cursor: pass an endCursor returned by this API');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    !parsed.every((part) => typeof part === 'string') ||
    !UUID.test(parsed[2] as string)
  ) {
    throw AppError.badField(field, 'malformed cursor: pass an endCursor returned by this API');
  }
  const [order, value, id] = parsed as [string, string, string];
  if (order !== expectedOrder) {
    throw AppError.badField(field, `the cursor belongs to orderBy ${order}, not ${expectedOrder}`);
  }
  return { order, value, id };
}

export function checkPageSize(first: number | null | undefined, fallback = 20, field = 'first'): number {
  const size = first ?? fallback;
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE_SIZE) {
    throw AppError.badField(field, `must be an integer from 0 to ${MAX_PAGE_SIZE}; got ${size}`);
  }
  return size;
}

/** Relay's two directions: `first`/`after` forward, `last`/`before` backward; never both sizes. */
export interface PageWindow {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * The size and direction of a keyset page, and its two decoded bounds. `first` and `last`
 * together are refused: Relay allows it, but the page it defines (the last n of the first m)
 * is rarely what a client means, and it cannot be read with one LIMIT.
 */
export function pageWindow(args: PageWindow, order: string): { size: number; backward: boolean; after: CursorValue | null; before: CursorValue | null } {
  if (args.first != null && args.last != null) throw AppError.badField('last', 'pass first (forward) or last (backward), not both');
  const backward = args.last != null || (args.before != null && args.first == null);
  const size = backward ? checkPageSize(args.last, 20, 'last') : checkPageSize(args.first);
  return {
    size,
    backward,
    after: args.after ? decodeCursor(args.after, order, 'after') : null,
    before: args.before ? decodeCursor(args.before, order, 'before') : null,
  };
}
