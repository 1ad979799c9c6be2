import { AppError } from '@hindsight/domain';

/**
 * Opaque Relay cursors for keyset pagination: the sort value and the id of the last row seen,
 * tagged with the ordering they belong to so a cursor cannot be replayed under another order.
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

export function checkPageSize(first: number | null | undefined, fallback = 20): number {
  const size = first ?? fallback;
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE_SIZE) {
    throw AppError.badField('first', `must be an integer from 0 to ${MAX_PAGE_SIZE}; got ${size}`);
  }
  return size;
}
