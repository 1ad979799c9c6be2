import { AppError, LIMITS } from '@hindsight/domain';
import { Prisma, type PrismaService } from '@hindsight/db';

/**
 * Interactive transactions for writes. `maxWait` covers queueing for a pooled connection when
 * many writers arrive at once; the work itself is a handful of statements.
 */
export const WRITE_TRANSACTION = { maxWait: 15_000, timeout: 20_000 } as const;

/**
 * Constraint violations that can only come from a concurrent writer (the service checked keys
 * and references before writing) surface as Prisma errors; the API maps them to CONFLICT, so
 * the client re-reads instead of seeing INTERNAL_SERVER_ERROR.
 */
export async function inWriteTransaction<T>(prisma: PrismaService, work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return prisma.$transaction(work, WRITE_TRANSACTION);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id cannot name anything; say NOT_FOUND rather than letting Postgres reject the cast. */
export function checkId(what: string, id: string): void {
  if (!UUID.test(id)) throw AppError.notFound(what, id, 'id');
}

export function checkExpectedVersion(version: number): void {
  if (!Number.isInteger(version) || version < 1) throw AppError.badField('expectedVersion', 'expected the positive version you last read');
}

export function checkNote(note: string | null | undefined): string | null {
  if (note === null || note === undefined || note.trim() === '') return null;
  if (note.length > LIMITS.text) throw AppError.badField('note', `is ${note.length} characters long; the limit is ${LIMITS.text}`);
  return note.trim();
}
