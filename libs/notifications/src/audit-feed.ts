import { Prisma, type PrismaService } from '@hindsight/db';
import type { Notice } from './notice';

type Tx = Prisma.TransactionClient;

const CURSOR = 'webhooks';
/** Events and overdue items taken per poll; the rest wait for the next one. */
export const BATCH = 500;

interface EventRow {
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
 * Reads the audit trail as an outbox: the follow-up events written since the last read, taking
 * only events of transactions that have finished (their transaction id is below the oldest one
 * still running), so an event that commits late is never skipped. One reader at a time (an
 * advisory lock), the cursor moved in the same transaction as the read; the caller hands the
 * notices on before the transaction commits, so a crash repeats them rather than losing them.
 */
export async function takeNotices(prisma: PrismaService, publicUrl: string | null, deliver: (notices: Notice[]) => Promise<void>): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const [lock] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('hindsight:notifications')) AS ok`;
    if (!lock?.ok) return 0;
    await startCursor(tx);
    const events = await newEvents(tx);
    const overdue = await newlyOverdue(tx);
    const notices = [...events.map((e) => eventNotice(e, publicUrl)), ...overdue.map((o) => overdueNotice(o, publicUrl))];
    if (notices.length > 0) await deliver(notices);
    return notices.length;
  });
}

/**
 * The first read starts from now: what happened before notifications were turned on, and what
 * was already overdue then, is not announced.
 */
async function startCursor(tx: Tx): Promise<void> {
  const created = await tx.$executeRaw`INSERT INTO "NotificationCursor" ("name", "txid", "eventId")
    SELECT ${CURSOR}, COALESCE(max(e."txid"), '0'::xid8), COALESCE(max(e."id"), 0) FROM "AuditEvent" e
    ON CONFLICT ("name") DO NOTHING`;
  if (created === 0) return;
  await tx.$executeRaw`INSERT INTO "OverdueNotice" ("actionableId", "dueDate")
    SELECT a."id", a."dueDate" FROM "Actionable" a
    WHERE a."status" IN ('open', 'in_progress') AND a."dueDate" < CURRENT_DATE
    ON CONFLICT DO NOTHING`;
}

async function newEvents(tx: Tx): Promise<EventRow[]> {
  const rows = await tx.$queryRaw<EventRow[]>`
    SELECT e."id", e."txid"::text AS txid, e."at", e."actor", e."actionableId"::text AS "actionableId", e."entityKey",
           e."action"::text AS action, e."field", e."from", e."to", e."note", i."slug"
    FROM "AuditEvent" e
    CROSS JOIN "NotificationCursor" c
    LEFT JOIN "Incident" i ON i."id" = e."incidentId"
    WHERE c."name" = ${CURSOR}
      AND e."entity" = 'actionable'
      AND (e."txid", e."id") > (c."txid", c."eventId")
      AND e."txid" < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY e."txid", e."id"
    LIMIT ${BATCH}`;
  const last = rows[rows.length - 1];
  if (last) {
    await tx.$executeRaw`UPDATE "NotificationCursor" SET "txid" = ${last.txid}::xid8, "eventId" = ${last.id}, "updatedAt" = now() WHERE "name" = ${CURSOR}`;
  }
  return rows;
}

interface OverdueRow {
  id: string;
  key: string;
  dueDate: Date;
  slug: string;
}

/** Unfinished follow-ups of published incidents whose due date has passed and that were not announced for that date. */
async function newlyOverdue(tx: Tx): Promise<OverdueRow[]> {
  return tx.$queryRaw<OverdueRow[]>`
    WITH due AS (
      SELECT a."id", a."key", a."dueDate", i."slug"
      FROM "Actionable" a JOIN "Incident" i ON i."id" = a."incidentId"
      WHERE i."status" = 'published' AND a."status" IN ('open', 'in_progress') AND a."dueDate" < CURRENT_DATE
        AND NOT EXISTS (SELECT 1 FROM "OverdueNotice" n WHERE n."actionableId" = a."id" AND n."dueDate" = a."dueDate")
      ORDER BY a."dueDate", a."id"
      LIMIT ${BATCH}
    ), noted AS (
      INSERT INTO "OverdueNotice" ("actionableId", "dueDate") SELECT "id", "dueDate" FROM due
      ON CONFLICT DO NOTHING RETURNING "actionableId"
    )
    SELECT due."id"::text AS id, due."key", due."dueDate", due."slug" FROM due JOIN noted ON noted."actionableId" = due."id"`;
}

function link(publicUrl: string | null, slug: string | null, key: string): string | null {
  return publicUrl && slug ? `${publicUrl.replace(/\/+$/, '')}/incidents/${encodeURIComponent(slug)}#actionable-${key}` : null;
}

function eventNotice(e: EventRow, publicUrl: string | null): Notice {
  const type = e.action === 'create' ? 'actionable.created' : e.action === 'delete' ? 'actionable.deleted' : 'actionable.updated';
  return {
    id: `audit-${e.id}`,
    type,
    at: e.at.toISOString(),
    actor: e.actor,
    actionable: { id: e.actionableId, key: e.entityKey, incident: e.slug, url: type === 'actionable.deleted' ? null : link(publicUrl, e.slug, e.entityKey) },
    change: e.action === 'update' ? { field: e.field, from: e.from, to: e.to, note: e.note } : null,
  };
}

function overdueNotice(o: OverdueRow, publicUrl: string | null): Notice {
  const due = o.dueDate.toISOString().slice(0, 10);
  return {
    id: `overdue-${o.id}-${due}`,
    type: 'actionable.overdue',
    at: new Date().toISOString(),
    actor: null,
    actionable: { id: o.id, key: o.key, incident: o.slug, url: link(publicUrl, o.slug, o.key) },
    change: { field: 'dueDate', from: null, to: due, note: null },
  };
}
