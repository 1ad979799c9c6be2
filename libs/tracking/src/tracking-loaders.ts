import DataLoader from 'dataloader';
import { Prisma, type PrismaService } from '@hindsight/db';
import type { AuditEventRecord } from './tracking.types';

/** The most recent events kept per record in one batch; the API's `last` argument is capped at it. */
export const MAX_HISTORY = 500;

/**
 * Per-request batch loaders for the tracking fields of actionables and incidents: one query per
 * kind, whatever the number of parents on the page. Create one instance per request.
 */
export class TrackingLoaders {
  constructor(private readonly prisma: PrismaService) {}

  readonly actionableHistory = new DataLoader<string, AuditEventRecord[]>((ids) => this.history(Prisma.sql`"actionableId"`, ids));

  readonly incidentHistory = new DataLoader<string, AuditEventRecord[]>((ids) => this.history(Prisma.sql`"incidentId"`, ids));

  /** The last MAX_HISTORY events of each record, oldest first. */
  private async history(column: Prisma.Sql, ids: readonly string[]): Promise<AuditEventRecord[][]> {
    const rows = await this.prisma.$queryRaw<(AuditEventRecord & { owner: string })[]>`
      SELECT e."id", e."at", e."actor", e."actorTokenId"::text AS "actorTokenId", e."incidentId"::text AS "incidentId",
             e."actionableId"::text AS "actionableId", e."entity"::text AS "entity", e."entityKey", e."action"::text AS "action",
             e."field", e."from", e."to", e."note", e."version", e.${column}::text AS "owner"
      FROM (
        SELECT *, row_number() OVER (PARTITION BY ${column} ORDER BY "id" DESC) AS "rank"
        FROM "AuditEvent" WHERE ${column} = ANY(${[...ids]}::uuid[])
      ) e
      WHERE e."rank" <= ${MAX_HISTORY}
      ORDER BY e."id" ASC`;
    const groups = new Map<string, AuditEventRecord[]>(ids.map((id) => [id, []]));
    for (const { owner, ...event } of rows) groups.get(owner)?.push(event);
    return ids.map((id) => groups.get(id) ?? []);
  }
}
