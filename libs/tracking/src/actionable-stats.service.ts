import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';

export interface ActionableCounts {
  total: number;
  open: number;
  inProgress: number;
  done: number;
  wontDo: number;
  /** Due date passed while still open or in progress. */
  overdue: number;
  /** Median days since creation of the items still open or in progress; null when there are none. */
  medianOpenAgeDays: number | null;
}

export interface ActionableStats extends ActionableCounts {
  byOrganization: (ActionableCounts & { organization: string })[];
  byPattern: (ActionableCounts & { pattern: string; name: string })[];
}

type CountRow = {
  total: bigint;
  open: bigint;
  in_progress: bigint;
  done: bigint;
  wont_do: bigint;
  overdue: bigint;
  median_days: number | null;
};

const UNFINISHED = Prisma.sql`a."status" IN ('open', 'in_progress')`;

/**
 * When a follow-up was raised: its creation here (the audit trail's create event) or, for one
 * that came with the postmortem (seeded, imported or written with the incident), the incident's
 * own end (resolved, else mitigated, detected, started), since the postmortem raised it. Only
 * when neither is known does the time it was stored stand in.
 */
export const RAISED_AT = Prisma.sql`COALESCE(
    (SELECT min(e."at") FROM "AuditEvent" e WHERE e."actionableId" = a."id" AND e."entity" = 'actionable' AND e."action" = 'create'),
    i."resolvedAt", i."mitigatedAt", i."detectedAt", i."startedAt", a."createdAt")`;

/** The aggregates every grouping shares; one scan per query, counted with FILTER. */
const AGGREGATES = Prisma.sql`
  count(*) AS total,
  count(*) FILTER (WHERE a."status" = 'open') AS open,
  count(*) FILTER (WHERE a."status" = 'in_progress') AS in_progress,
  count(*) FILTER (WHERE a."status" = 'done') AS done,
  count(*) FILTER (WHERE a."status" = 'wont_do') AS wont_do,
  count(*) FILTER (WHERE a."dueDate" < CURRENT_DATE AND ${UNFINISHED}) AS overdue,
  (percentile_cont(0.5) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM (now() - ${RAISED_AT})) / 86400.0)
     FILTER (WHERE ${UNFINISHED}))::float8 AS median_days`;

function counts(row: CountRow | undefined): ActionableCounts {
  return {
    total: Number(row?.total ?? 0),
    open: Number(row?.open ?? 0),
    inProgress: Number(row?.in_progress ?? 0),
    done: Number(row?.done ?? 0),
    wontDo: Number(row?.wont_do ?? 0),
    overdue: Number(row?.overdue ?? 0),
    medianOpenAgeDays: row?.median_days ?? null,
  };
}

/** Where follow-up work stands across published incidents, overall, per organization and per pattern. */
@Injectable()
export class ActionableStatsService {
  constructor(private readonly prisma: PrismaService) {}

  async stats(): Promise<ActionableStats> {
    const [byOrg, byPattern] = await Promise.all([
      this.prisma.$queryRaw<(CountRow & { organization: string | null; overall: number })[]>`
        SELECT i."organization" AS organization, GROUPING(i."organization")::int AS overall, ${AGGREGATES}
        FROM "Actionable" a JOIN "Incident" i ON i."id" = a."incidentId"
        WHERE i."status" = 'published'
        GROUP BY GROUPING SETS ((), (i."organization"))
        ORDER BY i."organization"`,
      this.prisma.$queryRaw<(CountRow & { pattern: string; name: string })[]>`
        SELECT p."key" AS pattern, p."name" AS name, ${AGGREGATES}
        FROM "Actionable" a
        JOIN "Incident" i ON i."id" = a."incidentId"
        JOIN "IncidentPattern" ip ON ip."incidentId" = i."id"
        JOIN "Pattern" p ON p."id" = ip."patternId"
        WHERE i."status" = 'published'
        GROUP BY p."key", p."name"
        ORDER BY p."key"`,
    ]);
    return {
      ...counts(byOrg.find((r) => r.overall === 1)),
      byOrganization: byOrg.filter((r) => r.overall === 0).map((r) => ({ organization: r.organization!, ...counts(r) })),
      byPattern: byPattern.map((r) => ({ pattern: r.pattern, name: r.name, ...counts(r) })),
    };
  }
}
