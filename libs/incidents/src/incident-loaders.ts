import DataLoader from 'dataloader';
import type { PrismaService } from '@hindsight/db';
import { findRelatedIncidents, type RelatedIncident } from './related-incidents.service';
import { allColumns, incidentTreeStatement, treeOf, type ActionableInclude, type IncidentInclude } from './incident-tree-query';
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
 * A DataLoader that also hands back, as they are, the values primed into it (the tree statements
 * prime every child collection they fetched): `get` returns such a value itself rather than a
 * promise of it, so graphql-js completes the field, and everything under it, in the same turn
 * instead of one promise (and microtask) per field per item. Keys it holds no value for are
 * loaded and batched as by any DataLoader. For string keys only (the held values are by key).
 */
export class TreeLoader<V> extends DataLoader<string, V> {
  private readonly held = new Map<string, V>();

  /** The value when it was primed, else a promise of it (batched with the other loads of this tick). */
  get(key: string): V | Promise<V> {
    return this.held.has(key) ? (this.held.get(key) as V) : this.load(key);
  }

  override load(key: string): Promise<V> {
    return this.held.has(key) ? Promise.resolve(this.held.get(key) as V) : super.load(key);
  }

  /** As DataLoader's: a key that has a value keeps it. */
  override prime(key: string, value: V | Promise<V> | Error): this {
    if (this.held.has(key)) return this;
    if (value instanceof Error || value instanceof Promise) return super.prime(key, value);
    this.held.set(key, value);
    return this;
  }

  override clear(key: string): this {
    this.held.delete(key);
    return super.clear(key);
  }

  override clearAll(): this {
    this.held.clear();
    return super.clearAll();
  }
}

/**
 * Per-request batch loaders for everything nested under an incident. One query per kind of
 * child, whatever the number of parents: a page of 4 or 400 incidents costs the same statements.
 * Create one instance per request; it caches for the life of that request only.
 */
export class IncidentLoaders {
  constructor(private readonly prisma: PrismaService) {}

  readonly incident = new TreeLoader<IncidentRecord | null>(async (ids) =>
    byId(ids, await this.prisma.incident.findMany({ where: { id: { in: [...ids] } } })),
  );

  readonly timeline = new TreeLoader<TimelineEventRecord[]>(async (incidentIds) =>
    groupBy(
      incidentIds,
      await this.prisma.timelineEvent.findMany({ where: { incidentId: { in: [...incidentIds] } }, orderBy: [{ incidentId: 'asc' }, { position: 'asc' }] }),
      (e) => e.incidentId,
    ),
  );

  readonly factors = new TreeLoader<CausalFactorRecord[]>(async (incidentIds) =>
    groupBy(
      incidentIds,
      await this.prisma.causalFactor.findMany({ where: { incidentId: { in: [...incidentIds] } }, orderBy: [{ incidentId: 'asc' }, { position: 'asc' }] }),
      (f) => f.incidentId,
    ),
  );

  readonly factor = new TreeLoader<CausalFactorRecord | null>(async (ids) =>
    byId(ids, await this.prisma.causalFactor.findMany({ where: { id: { in: [...ids] } } })),
  );

  readonly links = new TreeLoader<CausalLinkRecord[]>(async (incidentIds) =>
    groupBy(
      incidentIds,
      await this.prisma.causalLink.findMany({ where: { incidentId: { in: [...incidentIds] } }, orderBy: { id: 'asc' } }),
      (l) => l.incidentId,
    ),
  );

  readonly actionables = new TreeLoader<ActionableRecord[]>(async (incidentIds) =>
    groupBy(
      incidentIds,
      await this.prisma.actionable.findMany({ where: { incidentId: { in: [...incidentIds] } }, orderBy: [{ incidentId: 'asc' }, { position: 'asc' }] }),
      (a) => a.incidentId,
    ),
  );

  /**
   * An incident's actionables as `Incident.actionables` hands them to the fields the operation
   * selected on Actionable: a tree statement that left out columns none of those fields read
   * (`IncidentInclude.actionableColumns`) primes its records here only, and nowhere else reads
   * them; whole records (primed or loaded) are the `actionables` loader's. This holds because a
   * set of loaders serves one operation (app.module.ts makes one per request, and batched HTTP
   * requests are off): another operation's fields could need columns these records lack.
   */
  readonly actionablesAsSelected = new TreeLoader<ActionableRecord[]>((incidentIds) => this.actionables.loadMany(incidentIds));

  /** An incident's patterns as `Incident.patterns` hands them on: as `actionablesAsSelected`, for `IncidentInclude.patternColumns`. */
  readonly patternsAsSelected = new TreeLoader<PatternRecord[]>((incidentIds) => this.patterns.loadMany(incidentIds));

  readonly references = new TreeLoader<ExternalReferenceRecord[]>(async (actionableIds) =>
    groupBy(
      actionableIds,
      await this.prisma.externalReference.findMany({ where: { actionableId: { in: [...actionableIds] } }, orderBy: [{ actionableId: 'asc' }, { position: 'asc' }] }),
      (r) => r.actionableId,
    ),
  );

  readonly addressedFactors = new TreeLoader<CausalFactorRecord[]>(async (actionableIds) => {
    const rows = await this.prisma.actionableFactor.findMany({
      where: { actionableId: { in: [...actionableIds] } },
      include: { factor: true },
      orderBy: { factor: { position: 'asc' } },
    });
    return groupBy(actionableIds, rows, (r) => r.actionableId).map((group) => group.map((r) => r.factor));
  });

  /**
   * `Incident.related(first)` for every incident of the request at once (per distinct `first`):
   * the statements of `findRelatedIncidents` plus one for the related incidents' records,
   * whatever the number of incidents asking.
   */
  readonly related = new DataLoader<{ id: string; first: number }, RelatedIncident[], string>(
    async (keys) => {
      const byFirst = new Map<number, Promise<Map<string, { id: string; score: number; reasons: RelatedIncident['reasons'] }[]> | Error>>();
      for (const k of keys) {
        if (!byFirst.has(k.first)) {
          const ids = keys.filter((x) => x.first === k.first).map((x) => x.id);
          byFirst.set(k.first, findRelatedIncidents(this.prisma, ids, k.first).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e)))));
        }
      }
      const found = new Map<number, Awaited<ReturnType<typeof findRelatedIncidents>> | Error>();
      for (const [first, p] of byFirst) found.set(first, await p);
      const wanted = [...new Set([...found.values()].flatMap((m) => (m instanceof Error ? [] : [...m.values()].flat().map((r) => r.id))))];
      // One statement even when nothing is related, so the count does not depend on the data.
      const rows = await this.prisma.incident.findMany({ where: { id: { in: wanted } } });
      for (const r of rows) this.incident.prime(r.id, r);
      const records = new Map(rows.map((r) => [r.id, r]));
      return keys.map((k) => {
        const refs = found.get(k.first)!;
        if (refs instanceof Error) return refs;
        return (refs.get(k.id) ?? []).flatMap((r) => {
          const incident = records.get(r.id);
          return incident ? [{ incident, score: r.score, reasons: r.reasons }] : [];
        });
      });
    },
    { cacheKeyFn: (k) => `${k.id}:${k.first}` },
  );

  /** Narratives are large: rows loaded without one get it from here, for all of them in one statement. */
  readonly narrative = new TreeLoader<string>(async (ids) => {
    const rows = await this.prisma.incident.findMany({ where: { id: { in: [...ids] } }, select: { id: true, narrative: true } });
    const map = new Map(rows.map((r) => [r.id, r.narrative]));
    return ids.map((id) => map.get(id) ?? '');
  });

  /**
   * Published incidents by id (in the order given; missing ones left out) or by slug, with the
   * children `include` names, in one named statement; every child collection lands in its
   * loader (actionables and patterns without all their columns only in the `…AsSelected` one),
   * so the nested resolvers ask no further query. Without `include.narrative` the
   * records carry `narrative: null` and the `narrative` loader fetches it when asked.
   */
  async loadIncidentTrees(by: { ids: readonly string[] } | { slug: string }, include: IncidentInclude, options: { includeDrafts?: boolean } = {}): Promise<IncidentRecord[]> {
    const ids = 'ids' in by ? by.ids : null;
    if (ids && ids.length === 0) return [];
    const statement = incidentTreeStatement(ids ? 'ids' : 'slug', include, options.includeDrafts === true);
    const { rows } = await this.prisma.pool.query<Record<string, unknown>>({ ...statement, values: [ids ? [...ids] : (by as { slug: string }).slug] });
    const records = this.incidentsFromTreeRows(rows.map(treeOf), include);
    if (!ids) return records;
    const byId = new Map(records.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is IncidentRecord => r !== undefined);
  }

  /** Records from the trees (`treeOf`) of rows of `incidentTreeColumns(include)`, in their order, with every child collection primed. */
  incidentsFromTreeRows(rows: readonly Record<string, unknown>[], include: IncidentInclude): IncidentRecord[] {
    const whole = { actionables: allColumns('actionable', include.actionableColumns), patterns: allColumns('pattern', include.patternColumns) };
    return rows.map((row) => this.primeIncident(row, include, whole));
  }

  /** Records from the trees (`treeOf`) of rows of `actionableTreeColumns(include)`, in their order, with their children and incidents primed. */
  actionablesFromTreeRows(rows: readonly Record<string, unknown>[], include: ActionableInclude): ActionableRecord[] {
    return rows.map((row) => {
      const t = row.row as Record<string, unknown>;
      const a = toActionable(t, t.incidentId as string);
      if (include.references) this.references.prime(a.id, (row.j_references as Record<string, unknown>[]).map((r) => toReference(r, a.id)));
      if (include.addresses) this.addressedFactors.prime(a.id, (row.j_addresses as Record<string, unknown>[]).map((f) => toFactor(f, f.incidentId as string)));
      if (include.incident && row.j_incident) this.incident.prime(a.incidentId, toIncident(row.j_incident as Record<string, unknown>));
      return a;
    });
  }

  /** `whole`: whether the statement sent all of the actionables' and of the patterns' columns (`allColumns`). */
  private primeIncident(row: Record<string, unknown>, include: IncidentInclude, whole: { actionables: boolean; patterns: boolean }): IncidentRecord {
    const incident = toIncident(row);
    const id = incident.id;
    this.incident.prime(id, incident);
    if (include.narrative) this.narrative.prime(id, incident.narrative);
    if (include.patterns) {
      const patterns = row.j_patterns as PatternRecord[];
      this.patternsAsSelected.prime(id, patterns);
      if (whole.patterns) this.patterns.prime(id, patterns);
    }
    if (include.timeline) this.timeline.prime(id, (row.j_timeline as Record<string, unknown>[]).map((e) => toTimelineEvent(e, id)));
    if (include.factors) {
      const factors = (row.j_factors as Record<string, unknown>[]).map((f) => toFactor(f, id));
      this.factors.prime(id, factors);
      for (const f of factors) this.factor.prime(f.id, f);
    }
    if (include.links) this.links.prime(id, (row.j_links as Record<string, unknown>[]).map((l) => toLink(l, id)));
    if (include.actionables) {
      const rows = row.j_actionables as Record<string, unknown>[];
      const records = rows.map((a) => toActionable(a, id));
      this.actionablesAsSelected.prime(id, records);
      if (whole.actionables) this.actionables.prime(id, records);
      for (const a of rows) {
        const actionableId = a.id as string;
        if (include.references) this.references.prime(actionableId, (a.references as Record<string, unknown>[]).map((r) => toReference(r, actionableId)));
        if (include.addresses) this.addressedFactors.prime(actionableId, (a.addresses as Record<string, unknown>[]).map((f) => toFactor(f, f.incidentId as string)));
      }
    }
    return incident;
  }

  readonly patterns = new TreeLoader<PatternRecord[]>(async (incidentIds) => {
    const rows = await this.prisma.incidentPattern.findMany({
      where: { incidentId: { in: [...incidentIds] } },
      include: { pattern: true },
      orderBy: { pattern: { key: 'asc' } },
    });
    return groupBy(incidentIds, rows, (r) => r.incidentId).map((group) => group.map((r) => r.pattern));
  });
}

/**
 * An instant or a calendar date of a tree statement (epoch milliseconds, see `epochMs` in
 * incident-tree-query.ts) as the Date the read models carry.
 */
function dateOf(v: unknown, field: string): Date | null {
  if (v === null) return null;
  if (typeof v !== 'number') throw new Error(`a tree statement answered ${field} as ${typeof v}, not as epoch milliseconds`);
  return new Date(v);
}

/** As `dateOf`, for a column a statement may leave out: undefined then (see `toActionable`). */
function sentDateOf(v: unknown, field: string): Date | null {
  return v === undefined ? (undefined as never) : dateOf(v, field);
}

/**
 * The records are written out field by field (one object each, of one shape), not spread from
 * the parsed JSON with the children left out: that copied every object twice, and typed nothing.
 */
function toIncident(t: Record<string, unknown>): IncidentRecord {
  return {
    id: t.id as string,
    slug: t.slug as string,
    status: t.status as IncidentRecord['status'],
    title: t.title as string,
    organization: t.organization as string | null,
    components: t.components as string[],
    summary: t.summary as string,
    // Null where the statement left it out (an actionable's incident; a tree without narrative).
    narrative: (t.narrative ?? null) as string,
    impact: t.impact as string,
    sourceTitle: t.sourceTitle as string,
    sourceUrl: t.sourceUrl as string | null,
    sourceLanguage: t.sourceLanguage as string,
    sourceOriginalText: t.sourceOriginalText as string | null,
    startedAt: dateOf(t.startedAt, 'startedAt'),
    startedPrecision: t.startedPrecision as IncidentRecord['startedPrecision'],
    detectedAt: dateOf(t.detectedAt, 'detectedAt'),
    detectedPrecision: t.detectedPrecision as IncidentRecord['detectedPrecision'],
    mitigatedAt: dateOf(t.mitigatedAt, 'mitigatedAt'),
    mitigatedPrecision: t.mitigatedPrecision as IncidentRecord['mitigatedPrecision'],
    resolvedAt: dateOf(t.resolvedAt, 'resolvedAt'),
    resolvedPrecision: t.resolvedPrecision as IncidentRecord['resolvedPrecision'],
    severity: t.severity as string | null,
    nearMiss: t.nearMiss as boolean,
    tags: t.tags as string[],
    customerImpactMinutes: t.customerImpactMinutes as number | null,
    customerImpactPrecision: t.customerImpactPrecision as IncidentRecord['customerImpactPrecision'],
    version: t.version as number,
    createdAt: dateOf(t.createdAt, 'createdAt')!,
    updatedAt: dateOf(t.updatedAt, 'updatedAt')!,
  };
}

/** The children of a tree come without their parent's id (see `ACTIONABLE_JSON`): it is given here. */
function toTimelineEvent(t: Record<string, unknown>, incidentId: string): TimelineEventRecord {
  return {
    id: t.id as string,
    incidentId,
    key: t.key as string,
    position: t.position as number,
    at: dateOf(t.at, 'at'),
    precision: t.precision as TimelineEventRecord['precision'],
    asWritten: t.asWritten as string | null,
    kind: t.kind as TimelineEventRecord['kind'],
    text: t.text as string,
  };
}

/** The follow-up fields the tracking read model adds to `ActionableRecord` (libs/tracking), which the statements also carry. */
interface ActionableTreeRecord extends ActionableRecord {
  priority: string | null;
  closedAt: Date | null;
  closedBy: string | null;
  wontDoReason: string | null;
}

/**
 * A group of columns the statement left out (`ActionableColumnGroup`) leaves its fields
 * undefined: such records reach only the fields of the operation that asked for them, none of
 * which reads those (see `actionablesAsSelected`).
 */
function toActionable(t: Record<string, unknown>, incidentId: string): ActionableTreeRecord {
  return {
    id: t.id as string,
    incidentId,
    key: t.key as string,
    position: t.position as number,
    title: t.title as string,
    description: t.description as string,
    owner: t.owner as string | null,
    status: t.status as ActionableRecord['status'],
    dueDate: sentDateOf(t.dueDate, 'dueDate'),
    priority: t.priority as string | null,
    closedAt: sentDateOf(t.closedAt, 'closedAt'),
    closedBy: t.closedBy as string | null,
    wontDoReason: t.wontDoReason as string | null,
    version: t.version as number,
    createdAt: sentDateOf(t.createdAt, 'createdAt')!,
    updatedAt: sentDateOf(t.updatedAt, 'updatedAt')!,
  };
}

function toFactor(t: Record<string, unknown>, incidentId: string): CausalFactorRecord {
  return {
    id: t.id as string,
    incidentId,
    key: t.key as string,
    position: t.position as number,
    title: t.title as string | null,
    role: t.role as CausalFactorRecord['role'],
    component: t.component as string | null,
    text: t.text as string,
  };
}

function toLink(t: Record<string, unknown>, incidentId: string): CausalLinkRecord {
  return { id: t.id as string, incidentId, fromId: t.fromId as string, toId: t.toId as string, kind: t.kind as CausalLinkRecord['kind'] };
}

function toReference(t: Record<string, unknown>, actionableId: string): ExternalReferenceRecord {
  return { id: t.id as string, actionableId, position: t.position as number, kind: t.kind as ExternalReferenceRecord['kind'], ref: t.ref as string, url: t.url as string | null };
}
