import DataLoader from 'dataloader';
import { Prisma, type PrismaService } from '@hindsight/db';
import type { AuditEventRecord } from './tracking.types';

/**
 * One page of an audit trail, by event id (ids grow with time, so id order is time order):
 * `size` events after `afterId` (forward) or before `beforeId` (backward), both bounds optional.
 */
export interface HistoryWindow {
  size: number;
  backward: boolean;
  afterId: bigint | null;
  beforeId: bigint | null;
}

/** A page of one record's trail, oldest first, and whether events lie past either end of it. */
export interface HistoryPage {
  events: AuditEventRecord[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

interface HistoryKey {
  id: string;
  window: HistoryWindow;
}

const windowKey = (w: HistoryWindow) => `${w.backward ? 'b' : 'f'}:${w.size}:${w.afterId ?? ''}:${w.beforeId ?? ''}`;

/**
 * Per-request batch loaders for the tracking fields of actionables and incidents: one statement
 * per kind and page window, whatever the number of parents on the page (each parent's page is
 * read through the (record, id) index with a LIMIT, so a long trail costs no more than a short
 * one). Create one instance per request.
 */
export class TrackingLoaders {
  constructor(private readonly prisma: PrismaService) {}

  readonly actionableHistory = this.pageLoader(Prisma.sql`"actionableId"`);
  readonly incidentHistory = this.pageLoader(Prisma.sql`"incidentId"`);
  readonly actionableHistoryCount = new DataLoader<string, number>((ids) => this.counts(Prisma.sql`"actionableId"`, ids));
  readonly incidentHistoryCount = new DataLoader<string, number>((ids) => this.counts(Prisma.sql`"incidentId"`, ids));

  private pageLoader(column: Prisma.Sql) {
    return new DataLoader<HistoryKey, HistoryPage, string>(
      async (keys) => {
        // Parents on one page ask for the same window: one statement per distinct window.
        const groups = new Map<string, { window: HistoryWindow; ids: string[] }>();
        for (const k of keys) {
          const g = groups.get(windowKey(k.window)) ?? { window: k.window, ids: [] };
          g.ids.push(k.id);
          groups.set(windowKey(k.window), g);
        }
        const pages = new Map<string, HistoryPage>();
        for (const [wk, g] of groups) {
          const found = await this.pages(column, [...new Set(g.ids)], g.window);
          for (const [id, page] of found) pages.set(`${id}|${wk}`, page);
        }
        return keys.map((k) => pages.get(`${k.id}|${windowKey(k.window)}`)!);
      },
      { cacheKeyFn: (k) => `${k.id}|${windowKey(k.window)}` },
    );
  }

  private async pages(column: Prisma.Sql, ids: string[], w: HistoryWindow): Promise<Map<string, HistoryPage>> {
    const bounds = Prisma.sql`${w.afterId === null ? Prisma.empty : Prisma.sql`AND a."id" > ${w.afterId}`} ${w.beforeId === null ? Prisma.empty : Prisma.sql`AND a."id" < ${w.beforeId}`}`;
    const rows = await this.prisma.$queryRaw<(AuditEventRecord & { owner: string })[]>`
      SELECT e."id", e."at", e."actor", e."actorTokenId"::text AS "actorTokenId", e."incidentId"::text AS "incidentId",
             e."actionableId"::text AS "actionableId", e."entity"::text AS "entity", e."entityKey", e."action"::text AS "action",
             e."field", e."from", e."to", e."note", e."version", r."owner"::text AS "owner"
      FROM unnest(${ids}::uuid[]) AS r("owner")
      CROSS JOIN LATERAL (
        SELECT a.* FROM "AuditEvent" a
        WHERE a.${column} = r."owner" ${bounds}
        ORDER BY a."id" ${w.backward ? Prisma.sql`DESC` : Prisma.sql`ASC`}
        LIMIT ${w.size + 1}
      ) e
      ORDER BY e."id" ASC`;
    const byOwner = new Map<string, AuditEventRecord[]>(ids.map((id) => [id, []]));
    for (const { owner, ...event } of rows) byOwner.get(owner)?.push(event);
    const out = new Map<string, HistoryPage>();
    for (const [id, events] of byOwner) {
      // One event more than the page holds says that more lie beyond its far end; beyond a
      // cursor, events are known to lie from the cursor itself.
      const more = events.length > w.size;
      const page = more ? (w.backward ? events.slice(1) : events.slice(0, w.size)) : events;
      out.set(id, {
        events: page,
        hasNextPage: w.beforeId !== null || (!w.backward && more),
        hasPreviousPage: w.afterId !== null || (w.backward && more),
      });
    }
    return out;
  }

  private async counts(column: Prisma.Sql, ids: readonly string[]): Promise<number[]> {
    const rows = await this.prisma.$queryRaw<{ owner: string; n: number }[]>`
      SELECT ${column}::text AS "owner", count(*)::int AS "n" FROM "AuditEvent"
      WHERE ${column} = ANY(${[...ids]}::uuid[]) GROUP BY ${column}`;
    const byOwner = new Map(rows.map((r) => [r.owner, r.n]));
    return ids.map((id) => byOwner.get(id) ?? 0);
  }
}
