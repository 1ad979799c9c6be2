import { Prisma } from '@hindsight/db';
import type { Actor, AuditAction, AuditEntity, AuditValue } from './tracking.types';

type Tx = Prisma.TransactionClient;

/** One change before it is stamped with actor, time and note. */
export interface AuditDraft {
  entity: AuditEntity;
  entityKey: string;
  action: AuditAction;
  field?: string | null;
  from?: AuditValue;
  to?: AuditValue;
  incidentId?: string | null;
  actionableId?: string | null;
  version?: number | null;
}

function json(value: AuditValue | undefined): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === undefined || value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/**
 * Appends events inside the caller's transaction, so a change and its record commit or roll
 * back together. There is deliberately no update or delete counterpart anywhere in the code, and
 * the database refuses both (see the migration's trigger).
 */
export async function appendAuditEvents(tx: Tx, actor: Actor, at: Date, note: string | null, drafts: AuditDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  await tx.auditEvent.createMany({
    data: drafts.map((d) => ({
      at,
      actor: actor.name,
      actorTokenId: actor.tokenId,
      incidentId: d.incidentId ?? null,
      actionableId: d.actionableId ?? null,
      entity: d.entity,
      entityKey: d.entityKey,
      action: d.action,
      field: d.field ?? null,
      from: json(d.from),
      to: json(d.to),
      note,
      version: d.version ?? null,
    })),
  });
}
