import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError, type TimePrecision } from '@hindsight/domain';
import type { IncidentRecord } from './incident.types';

/** Precisions from finest to coarsest; a duration is as precise as its coarser end. */
const PRECISION_ORDER: TimePrecision[] = ['second', 'minute', 'ten_minutes', 'hour', 'day', 'approximate'];

export interface IncidentDuration {
  minutes: number;
  /** The coarser precision of the two key times it is measured between. */
  precision: TimePrecision;
  /** True unless both ends are known to the second or the minute. */
  approximate: boolean;
}

export interface DurationCheck {
  code: 'OUT_OF_ORDER' | 'RESOLVED_LONG_AFTER_MITIGATION';
  message: string;
}

export interface IncidentDurations {
  toDetect: IncidentDuration | null;
  toMitigate: IncidentDuration | null;
  toResolve: IncidentDuration | null;
  /** Inconsistencies between the key times, each flagged rather than silently corrected. */
  checks: DurationCheck[];
}

function between(from: Date | null, fromPrecision: TimePrecision, to: Date | null, toPrecision: TimePrecision): IncidentDuration | null {
  if (!from || !to || fromPrecision === 'none' || toPrecision === 'none') return null;
  const precision = PRECISION_ORDER[Math.max(PRECISION_ORDER.indexOf(fromPrecision), PRECISION_ORDER.indexOf(toPrecision))]!;
  return { minutes: Math.round(((to.getTime() - from.getTime()) / 60_000) * 10) / 10, precision, approximate: !['second', 'minute'].includes(precision) };
}

export interface CustomerImpact extends IncidentDuration {
  /** False: as the record states it. True: worked out from the start and mitigation times. */
  derived: boolean;
}

/**
 * How long customers were affected: as stated when the record says, otherwise from the start to
 * mitigation when both are known (as precise as the coarser of them); null when neither.
 */
export function customerImpactOf(
  i: Pick<IncidentRecord, 'customerImpactMinutes' | 'customerImpactPrecision' | `${'started' | 'mitigated'}${'At' | 'Precision'}`>,
): CustomerImpact | null {
  if (i.customerImpactMinutes !== null && i.customerImpactPrecision !== 'none') {
    const precision = i.customerImpactPrecision;
    return { minutes: i.customerImpactMinutes, precision, approximate: !['second', 'minute'].includes(precision), derived: false };
  }
  const span = between(i.startedAt, i.startedPrecision, i.mitigatedAt, i.mitigatedPrecision);
  return span && span.minutes >= 0 ? { ...span, derived: true } : null;
}

const hours = (minutes: number) => `${(minutes / 60).toFixed(1)} h`;

/**
 * A "resolved" counts as a later follow-up, not the end of the impact, when it comes more than
 * this many minutes after mitigation and more than `RESOLVED_LATE_FACTOR` times the time to
 * mitigate after it.
 */
export const RESOLVED_LATE_MINUTES = 12 * 60;
export const RESOLVED_LATE_FACTOR = 5;

/**
 * Time to detect, mitigate and resolve, each from the start, with its precision, and checks:
 * key times out of order, and a "resolved" so long after mitigation that it more likely marks a
 * later follow-up than the end of the impact (StackEgg: mitigated 3.4 h after the start,
 * "resolved" 29 h after it).
 */
export function incidentDurations(i: Pick<IncidentRecord, `${'started' | 'detected' | 'mitigated' | 'resolved'}${'At' | 'Precision'}`>): IncidentDurations {
  const toDetect = between(i.startedAt, i.startedPrecision, i.detectedAt, i.detectedPrecision);
  const toMitigate = between(i.startedAt, i.startedPrecision, i.mitigatedAt, i.mitigatedPrecision);
  const toResolve = between(i.startedAt, i.startedPrecision, i.resolvedAt, i.resolvedPrecision);
  const checks: DurationCheck[] = [];
  const ordered: [string, Date | null][] = [
    ['started', i.startedAt],
    ['detected', i.detectedAt],
    ['mitigated', i.mitigatedAt],
    ['resolved', i.resolvedAt],
  ];
  const known = ordered.filter((t): t is [string, Date] => t[1] !== null);
  for (let k = 1; k < known.length; k++) {
    if (known[k]![1].getTime() < known[k - 1]![1].getTime()) {
      checks.push({ code: 'OUT_OF_ORDER', message: `"${known[k]![0]}" is before "${known[k - 1]![0]}".` });
    }
  }
  if (toMitigate && toResolve && toMitigate.minutes > 0) {
    const after = toResolve.minutes - toMitigate.minutes;
    if (after > RESOLVED_LATE_MINUTES && after > RESOLVED_LATE_FACTOR * toMitigate.minutes) {
      checks.push({
        code: 'RESOLVED_LONG_AFTER_MITIGATION',
        message: `"resolved" is ${hours(after)} after mitigation, which came ${hours(toMitigate.minutes)} after the start: it likely marks a later follow-up, not the end of the impact; time to resolve is shown as recorded.`,
      });
    }
  }
  return { toDetect, toMitigate, toResolve, checks };
}

export const DURATION_METRICS = ['TIME_TO_DETECT', 'TIME_TO_MITIGATE', 'TIME_TO_RESOLVE'] as const;
export type DurationMetric = (typeof DURATION_METRICS)[number];
export const DURATION_GROUPS = ['ALL', 'PATTERN', 'ORGANIZATION', 'YEAR'] as const;
export type DurationGroup = (typeof DURATION_GROUPS)[number];

/**
 * Which durations a check takes out of the distributions: key times out of order make every
 * duration of the incident doubtful; a "resolved" long after mitigation only its time to resolve.
 */
export const CHECK_EXCLUDES: Record<DurationCheck['code'], readonly DurationMetric[]> = {
  OUT_OF_ORDER: DURATION_METRICS,
  RESOLVED_LONG_AFTER_MITIGATION: ['TIME_TO_RESOLVE'],
};

/** Histogram bucket upper bounds in minutes; the last bucket is open. */
export const DURATION_BUCKETS = [5, 15, 60, 240, 1440] as const;

export interface DurationDistribution {
  /** The group's value: a pattern key, an organization, a year, or "all". */
  group: string;
  /** Incidents with both key times whose duration is counted (none of its checks takes it out). */
  count: number;
  /** Of them, how many rest on an approximate time (coarser than a minute). */
  approximateCount: number;
  /** Incidents of the group with both key times whose duration a check took out (`CHECK_EXCLUDES`). */
  excludedCount: number;
  /** Minutes; null when a check took out every duration of the group (`count` is 0). */
  p50: number | null;
  p90: number | null;
  max: number | null;
  /** Counts per bucket: under 5 min, 5–15, 15–60, 1–4 h, 4–24 h, 24 h and more. */
  histogram: number[];
}

/** How many published incidents with both key times a metric leaves out, by the check that took them out. */
export interface DurationExclusions {
  metric: DurationMetric;
  /** Per check code; an incident flagged by both counts under OUT_OF_ORDER. */
  byCheck: { code: DurationCheck['code']; count: number }[];
  total: number;
}

const END: Record<DurationMetric, { at: Prisma.Sql; precision: Prisma.Sql }> = {
  TIME_TO_DETECT: { at: Prisma.sql`i."detectedAt"`, precision: Prisma.sql`i."detectedPrecision"` },
  TIME_TO_MITIGATE: { at: Prisma.sql`i."mitigatedAt"`, precision: Prisma.sql`i."mitigatedPrecision"` },
  TIME_TO_RESOLVE: { at: Prisma.sql`i."resolvedAt"`, precision: Prisma.sql`i."resolvedPrecision"` },
};

/**
 * The checks of `incidentDurations` in SQL over `Incident i`, for the distributions: each known
 * key time against the latest earlier known one, and the late "resolved" rule with the same
 * thresholds (on unrounded minutes; `incidentDurations` compares minutes rounded to a tenth).
 */
const OUT_OF_ORDER_SQL = Prisma.sql`COALESCE(i."detectedAt" < i."startedAt", false)
  OR COALESCE(i."mitigatedAt" < COALESCE(i."detectedAt", i."startedAt"), false)
  OR COALESCE(i."resolvedAt" < COALESCE(i."mitigatedAt", i."detectedAt", i."startedAt"), false)`;
const RESOLVED_LATE_SQL = Prisma.sql`COALESCE(
  i."startedPrecision" <> 'none' AND i."mitigatedPrecision" <> 'none' AND i."resolvedPrecision" <> 'none'
  AND i."mitigatedAt" > i."startedAt"
  AND extract(epoch FROM (i."resolvedAt" - i."mitigatedAt")) / 60 > ${RESOLVED_LATE_MINUTES}
  AND extract(epoch FROM (i."resolvedAt" - i."mitigatedAt")) / 60 > ${RESOLVED_LATE_FACTOR} * extract(epoch FROM (i."mitigatedAt" - i."startedAt")) / 60, false)`;

function excludedSql(metric: DurationMetric): { outOfOrder: Prisma.Sql; resolvedLate: Prisma.Sql } {
  const applies = (code: DurationCheck['code']) => CHECK_EXCLUDES[code].includes(metric);
  return {
    outOfOrder: applies('OUT_OF_ORDER') ? Prisma.sql`(${OUT_OF_ORDER_SQL})` : Prisma.sql`false`,
    resolvedLate: applies('RESOLVED_LONG_AFTER_MITIGATION') ? Prisma.sql`(${RESOLVED_LATE_SQL})` : Prisma.sql`false`,
  };
}

/**
 * Distributions of a duration across published incidents, overall or per pattern, organization
 * or year, leaving out the durations a consistency check flags (`CHECK_EXCLUDES`). A group whose
 * every duration is flagged is still listed, with a count of 0 and no percentiles, so grouping
 * never hides an incident. One statement.
 */
@Injectable()
export class IncidentDurationsService {
  constructor(private readonly prisma: PrismaService) {}

  async distribution(metric: DurationMetric, groupBy: DurationGroup, first = 20): Promise<DurationDistribution[]> {
    if (!Number.isInteger(first) || first < 1 || first > 100) throw AppError.badField('first', 'expected 1 to 100');
    const end = END[metric];
    const { outOfOrder, resolvedLate } = excludedSql(metric);
    const group =
      groupBy === 'ALL'
        ? Prisma.sql`SELECT 'all'::text AS g, d.* FROM d`
        : groupBy === 'ORGANIZATION'
          ? Prisma.sql`SELECT d."organization" AS g, d.* FROM d`
          : groupBy === 'YEAR'
            ? Prisma.sql`SELECT extract(year FROM d."startedAt" AT TIME ZONE 'UTC')::int::text AS g, d.* FROM d`
            : Prisma.sql`SELECT p."key" AS g, d.* FROM d JOIN "IncidentPattern" ip ON ip."incidentId" = d."id" JOIN "Pattern" p ON p."id" = ip."patternId"`;
    const kept = Prisma.sql`NOT excluded`;
    const buckets = DURATION_BUCKETS.map((b, k) =>
      k === 0 ? Prisma.sql`count(*) FILTER (WHERE ${kept} AND m < ${b})::int` : Prisma.sql`count(*) FILTER (WHERE ${kept} AND m >= ${DURATION_BUCKETS[k - 1]} AND m < ${b})::int`,
    );
    const rows = await this.prisma.$queryRaw<{ g: string; n: number; approx: number; excluded: number; p50: number | null; p90: number | null; max: number | null; h: number[] }[]>`
      WITH d AS (
        SELECT i."id", i."organization", i."startedAt",
          extract(epoch FROM (${end.at} - i."startedAt")) / 60 AS m,
          (i."startedPrecision" NOT IN ('second', 'minute') OR ${end.precision} NOT IN ('second', 'minute')) AS approximate,
          (${outOfOrder} OR ${resolvedLate}) AS excluded
        FROM "Incident" i
        WHERE i."status" = 'published' AND i."startedAt" IS NOT NULL AND ${end.at} IS NOT NULL
          AND i."startedPrecision" <> 'none' AND ${end.precision} <> 'none'
      ), grouped AS (${group})
      SELECT g, count(*) FILTER (WHERE ${kept})::int AS n, count(*) FILTER (WHERE ${kept} AND approximate)::int AS approx, count(*) FILTER (WHERE excluded)::int AS excluded,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY m) FILTER (WHERE ${kept})::float8 AS p50,
        percentile_cont(0.9) WITHIN GROUP (ORDER BY m) FILTER (WHERE ${kept})::float8 AS p90,
        max(m) FILTER (WHERE ${kept})::float8 AS max,
        ARRAY[${Prisma.join(buckets)}, count(*) FILTER (WHERE ${kept} AND m >= ${DURATION_BUCKETS[DURATION_BUCKETS.length - 1]})::int] AS h
      FROM grouped GROUP BY g
      ORDER BY count(*) FILTER (WHERE ${kept}) DESC, count(*) DESC, g LIMIT ${first}`;
    const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
    return rows.map((r) => ({ group: r.g, count: r.n, approximateCount: r.approx, excludedCount: r.excluded, p50: round(r.p50), p90: round(r.p90), max: round(r.max), histogram: r.h }));
  }

  /** Per metric, the published incidents with both key times whose duration a check leaves out, and which check. One statement. */
  async exclusions(): Promise<DurationExclusions[]> {
    const parts = DURATION_METRICS.map((metric) => {
      const end = END[metric];
      const { outOfOrder, resolvedLate } = excludedSql(metric);
      return Prisma.sql`SELECT ${metric}::text AS metric,
          count(*) FILTER (WHERE ${outOfOrder})::int AS out_of_order,
          count(*) FILTER (WHERE NOT ${outOfOrder} AND ${resolvedLate})::int AS resolved_late
        FROM "Incident" i
        WHERE i."status" = 'published' AND i."startedAt" IS NOT NULL AND ${end.at} IS NOT NULL
          AND i."startedPrecision" <> 'none' AND ${end.precision} <> 'none'`;
    });
    const rows = await this.prisma.$queryRaw<{ metric: DurationMetric; out_of_order: number; resolved_late: number }[]>`${Prisma.join(parts, ' UNION ALL ')}`;
    return DURATION_METRICS.map((metric) => {
      const r = rows.find((x) => x.metric === metric) ?? { out_of_order: 0, resolved_late: 0 };
      const byCheck = [
        { code: 'OUT_OF_ORDER' as const, count: r.out_of_order },
        { code: 'RESOLVED_LONG_AFTER_MITIGATION' as const, count: r.resolved_late },
      ];
      return { metric, byCheck, total: r.out_of_order + r.resolved_late };
    });
  }
}
