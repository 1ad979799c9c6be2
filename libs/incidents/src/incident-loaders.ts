import DataLoader from 'dataloader';
import type { PrismaService } from '@hindsight/db';
import type {
  ActionableRecord,
  CausalFactorRecord,
  CausalLinkRecord,
  ExternalReferenceRecord,
  IncidentRecord,
  PatternRecord,
  TimelineEventRecord,
} from './incident.types';

function groupBy<T>(keys: readonly string[], rows: T[], keyOf: (row: T) => string): T[][] {
  const groups = new Map<string, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((k) => groups.get(k) ?? []);
}

function byId<T extends { id: string }>(keys: readonly string[], rows: T[]): (T | null)[] {
  const map = new Map(rows.map((r) => [r.id, r]));
  return keys.map((k) => map.get(k) ?? null);
}

/**
 * Per-request batch loaders for everything nested under an incident. One query per kind of
 * child, whatever the number of parents: a page of 4 or 400 incidents costs the same statements.
 * Create one instance per request; it caches for the life of that request only.
 */
export class IncidentLoaders {
  constructor(private readonly prisma: PrismaService) {}

  readonly incident = new DataLoader<string, IncidentRecord | null>(async (ids) =>
    byId(ids, await this.prisma.incident.findMany({ where: { id: { in: [...ids] } } })),
  );

  readonly timeline = new DataLoader<string, TimelineEventRecord[]>(async (incidentIds) =>
    groupBy(
      incidentIds,
      await this.prisma.timelineEvent.findMany({ where: { incidentId: { in: [...incidentIds] } }, orderBy: [{ incidentId: 'asc' }, { position: 'asc' }] }),
      (e) => e.incidentId,
    ),
  );

  readonly factors = new DataLoader<string, CausalFactorRecord[]>(async (incidentIds) =>
    groupBy(
      incidentIds,
      await this.prisma.causalFactor.findMany({ where: { incidentId: { in: [...incidentIds] } }, orderBy: [{ incidentId: 'asc' }, { position: 'asc' }] }),
      (f) => f.incidentId,
    ),
  );

  readonly factor = new DataLoader<string, CausalFactorRecord | null>(async (ids) =>
    byId(ids, await this.prisma.causalFactor.findMany({ where: { id: { in: [...ids] } } })),
  );

  readonly links = new DataLoader<string, CausalLinkRecord[]>(async (incidentIds) =>
    groupBy(
      incidentIds,
      await this.prisma.causalLink.findMany({ where: { incidentId: { in: [...incidentIds] } }, orderBy: { id: 'asc' } }),
      (l) => l.incidentId,
    ),
  );

  readonly actionables = new DataLoader<string, ActionableRecord[]>(async (incidentIds) =>
    groupBy(
      incidentIds,
      await this.prisma.actionable.findMany({ where: { incidentId: { in: [...incidentIds] } }, orderBy: [{ incidentId: 'asc' }, { position: 'asc' }] }),
      (a) => a.incidentId,
    ),
  );

  readonly references = new DataLoader<string, ExternalReferenceRecord[]>(async (actionableIds) =>
    groupBy(
      actionableIds,
      await this.prisma.externalReference.findMany({ where: { actionableId: { in: [...actionableIds] } }, orderBy: [{ actionableId: 'asc' }, { position: 'asc' }] }),
      (r) => r.actionableId,
    ),
  );

  readonly addressedFactors = new DataLoader<string, CausalFactorRecord[]>(async (actionableIds) => {
    const rows = await this.prisma.actionableFactor.findMany({
      where: { actionableId: { in: [...actionableIds] } },
      include: { factor: true },
      orderBy: { factor: { position: 'asc' } },
    });
    return groupBy(actionableIds, rows, (r) => r.actionableId).map((group) => group.map((r) => r.factor));
  });

  readonly patterns = new DataLoader<string, PatternRecord[]>(async (incidentIds) => {
    const rows = await this.prisma.incidentPattern.findMany({
      where: { incidentId: { in: [...incidentIds] } },
      include: { pattern: true },
      orderBy: { pattern: { key: 'asc' } },
    });
    return groupBy(incidentIds, rows, (r) => r.incidentId).map((group) => group.map((r) => r.pattern));
  });
}
