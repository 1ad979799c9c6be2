import type { Prisma, PrismaService } from '@hindsight/db';
import { readAuditFeed, tryReaderLock, type AuditFeedEvent } from '@hindsight/tracking';
import type { Notice } from './notice';

type Tx = Prisma.TransactionClient;

/** Events and overdue items taken per poll; the rest wait for the next one. */
export const BATCH = 500;

/**
 * The notices since the last read: the follow-up events of the audit trail (read as an outbox,
 * see `readAuditFeed`) and the follow-ups newly overdue. One reader at a time (an advisory lock);
 * the caller hands the notices on before the transaction commits, so a crash repeats them rather
 * than losing them. The first read starts from now: what happened before notifications were turned
 * on, and what was already overdue then, is not announced.
 */
export async function takeNotices(prisma: PrismaService, publicUrl: string | null, deliver: (notices: Notice[]) => Promise<void>): Promise<number> {
  return prisma.$transaction(async (tx) => {
    if (!(await tryReaderLock(tx, 'hindsight:notifications'))) return 0;
    const { events, started } = await readAuditFeed(tx, 'webhooks', BATCH);
    if (started) await markOverdueAsKnown(tx);
    const overdue = await newlyOverdue(tx);
    const notices = [...events.map((e) => eventNotice(e, publicUrl)), ...overdue.map((o) => overdueNotice(o, publicUrl))];
    if (notices.length > 0) await deliver(notices);
    return notices.length;
  });
}

async function markOverdueAsKnown(tx: Tx): Promise<void> {
  await tx.$executeRaw`INSERT INTO "OverdueNotice" ("actionableId", "dueDate")
    SELECT a."id", a."dueDate" FROM "Actionable" a
    WHERE a."status" IN ('open', 'in_progress') AND a."dueDate" < CURRENT_DATE
    ON CONFLICT DO NOTHING`;
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

function eventNotice(e: AuditFeedEvent, publicUrl: string | null): Notice {
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
