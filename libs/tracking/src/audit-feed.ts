import type { Prisma } from '@hindsight/db';

type Tx = Prisma.TransactionClient;

/** A follow-up event of the audit trail, as the trail's readers (notifications, tracker sync) see it. */
export interface AuditFeedEvent {
  id: bigint;
  txid: string;
  at: Date;
  actor: string;
  actionableId: string | null;
  entityKey: string;
  action: 'create' | 'update' | 'delete';
  field: string | null;
  from: unknown;
  to: unknown;
  note: string | null;
  slug: string | null;
}

/**
 * Reads the audit trail as an outbox, for one named reader: the follow-up events written since its
 * last read, taking only events of transactions that have finished (their transaction id is below
 * the oldest one still running), so an event that commits late is never skipped. The cursor moves
 * in the caller's transaction: act on the events before it commits, and a crash repeats them
 * rather than losing them. Returns whether the reader's cursor was created by this read (a new
 * reader starts from now).
 */
export async function readAuditFeed(tx: Tx, reader: string, limit: number): Promise<{ events: AuditFeedEvent[]; started: boolean }> {
  const created = await tx.$executeRaw`INSERT INTO "NotificationCursor" ("name", "txid", "eventId")
    SELECT ${reader}, COALESCE(max(e."txid"), '0'::xid8), COALESCE(max(e."id"), 0) FROM "AuditEvent" e
    ON CONFLICT ("name") DO NOTHING`;
  const events = await tx.$queryRaw<AuditFeedEvent[]>`
    SELECT e."id", e."txid"::text AS txid, e."at", e."actor", e."actionableId"::text AS "actionableId", e."entityKey",
           e."action"::text AS action, e."field", e."from", e."to", e."note", i."slug"
    FROM "AuditEvent" e
    CROSS JOIN "NotificationCursor" c
    LEFT JOIN "Incident" i ON i."id" = e."incidentId"
    WHERE c."name" = ${reader}
      AND e."entity" = 'actionable'
      AND (e."txid", e."id") > (c."txid", c."eventId")
      AND e."txid" < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY e."txid", e."id"
    LIMIT ${limit}`;
  const last = events[events.length - 1];
  if (last) {
    await tx.$executeRaw`UPDATE "NotificationCursor" SET "txid" = ${last.txid}::xid8, "eventId" = ${last.id}, "updatedAt" = now() WHERE "name" = ${reader}`;
  }
  return { events, started: created > 0 };
}

/** Takes a transaction-scoped advisory lock named `name`; false when another session holds it. */
export async function tryReaderLock(tx: Tx, name: string): Promise<boolean> {
  const [lock] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${name})) AS ok`;
  return lock?.ok === true;
}
