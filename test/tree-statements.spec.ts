import { PrismaService } from '@hindsight/db';
import { actionableTreeColumns, columnGroups, IncidentLoaders, incidentTreeStatement, loadSyntheticCorpus, treeOf, treeRow, type IncidentInclude } from '@hindsight/incidents';
import { testPrisma, createTestDatabase, type TestDatabase } from './support/test-db';

/**
 * The tree statements answer each row as one JSON column (`treeRow`), with instants and dates as
 * epoch milliseconds. The records the loaders build from them must be the ones the loaders' own
 * Prisma reads give for the same rows, field for field: on the four shipped incidents and a
 * synthetic corpus (severities, near misses, tags, customer impact, original-language text).
 */
describe('tree statements', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    prisma = testPrisma(db.url);
    await loadSyntheticCorpus(prisma, { incidents: 20, seed: 5, batchSize: 20 });
    // Neither the seeds nor the corpus close a follow-up: give two the closing fields, one closed
    // before 1970 (a negative epoch), so they are compared with values, not only nulls.
    const [done, dropped] = await prisma.actionable.findMany({ take: 2, orderBy: { id: 'asc' } });
    await prisma.actionable.update({ where: { id: done!.id }, data: { status: 'done', priority: 'p1', closedAt: new Date('2024-03-05T06:07:08.009Z'), closedBy: 'Ada' } });
    await prisma.actionable.update({ where: { id: dropped!.id }, data: { status: 'wont_do', closedAt: new Date('1969-12-31T23:59:59.999Z'), closedBy: 'Lin', wontDoReason: 'superseded' } });
  }, 300_000);
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await db.drop();
  });

  const all = { narrative: true, patterns: true, timeline: true, factors: true, links: true, actionables: true, references: true, addresses: true };

  /** A record built from a tree beside the one read through Prisma: every key the tree's record has, instants compared as times. */
  function expectSameRecord(fromTree: object, fromPrisma: object, where: string, skip: string[] = []): void {
    const other = fromPrisma as Record<string, unknown>;
    const time = (v: unknown) => (v instanceof Date ? v.getTime() : v);
    for (const [key, value] of Object.entries(fromTree)) {
      if (skip.includes(key)) continue;
      expect([where, key, time(value)]).toEqual([where, key, time(other[key])]);
      if (other[key] instanceof Date) expect([where, key, value instanceof Date]).toEqual([where, key, true]);
    }
  }

  /** Lists of records, pairwise, in the same order. */
  function expectSameRecords(fromTree: readonly object[], fromPrisma: readonly object[], where: string): void {
    expect([where, fromTree.length]).toEqual([where, fromPrisma.length]);
    fromTree.forEach((r, i) => expectSameRecord(r, fromPrisma[i]!, `${where}[${i}]`));
  }

  it('builds an incident and every nested collection with the values Prisma reads', async () => {
    const ids = (await prisma.incident.findMany({ select: { id: true }, orderBy: { slug: 'asc' } })).map((i) => i.id);
    expect(ids.length).toBe(24);
    const fromTrees = new IncidentLoaders(prisma);
    const throughPrisma = new IncidentLoaders(prisma);
    const records = await fromTrees.loadIncidentTrees({ ids }, all, { includeDrafts: true });
    expect(records.map((r) => r.id)).toEqual(ids);
    let actionables = 0;
    for (const incident of records) {
      const id = incident.id;
      expectSameRecord(incident, (await throughPrisma.incident.load(id))!, incident.slug);
      expect(fromTrees.narrative.get(id)).toBe(await throughPrisma.narrative.load(id));
      expectSameRecords(fromTrees.patterns.get(id) as object[], await throughPrisma.patterns.load(id), `${incident.slug} patterns`);
      expectSameRecords(fromTrees.timeline.get(id) as object[], await throughPrisma.timeline.load(id), `${incident.slug} timeline`);
      expectSameRecords(fromTrees.factors.get(id) as object[], await throughPrisma.factors.load(id), `${incident.slug} factors`);
      expectSameRecords(fromTrees.links.get(id) as object[], await throughPrisma.links.load(id), `${incident.slug} links`);
      const mine = fromTrees.actionables.get(id) as object[];
      expectSameRecords(mine, await throughPrisma.actionables.load(id), `${incident.slug} actionables`);
      for (const a of mine as { id: string }[]) {
        actionables++;
        expectSameRecords(fromTrees.references.get(a.id) as object[], await throughPrisma.references.load(a.id), `${incident.slug} references`);
        expectSameRecords(fromTrees.addressedFactors.get(a.id) as object[], await throughPrisma.addressedFactors.load(a.id), `${incident.slug} addresses`);
      }
    }
    expect(actionables).toBeGreaterThan(24);
    // The corpus holds the kinds of value that could differ between the two reads.
    expect(records.some((r) => typeof r.customerImpactMinutes === 'number')).toBe(true);
    expect(records.some((r) => r.nearMiss)).toBe(true);
    expect(records.some((r) => r.tags.length > 0)).toBe(true);
    expect(records.some((r) => r.mitigatedAt === null) && records.some((r) => r.mitigatedAt !== null)).toBe(true);
    const allActionables = records.flatMap((r) => fromTrees.actionables.get(r.id) as { dueDate: Date | null; closedAt?: Date | null; priority?: string | null }[]);
    expect(allActionables.some((a) => a.dueDate !== null)).toBe(true);
    expect(allActionables.filter((a) => a.closedAt).map((a) => a.closedAt!.toISOString()).sort()).toEqual(['1969-12-31T23:59:59.999Z', '2024-03-05T06:07:08.009Z']);
    expect(allActionables.some((a) => a.priority === 'p1')).toBe(true);
  });

  it('builds a board actionable with its references, addressed factors and incident with the values Prisma reads', async () => {
    const include = { references: true, addresses: true, incident: true };
    const fromTrees = new IncidentLoaders(prisma);
    const throughPrisma = new IncidentLoaders(prisma);
    const rows = (await prisma.pool.query(`SELECT ${treeRow(actionableTreeColumns(include))} FROM "Actionable" a ORDER BY a."id"`)).rows.map(treeOf);
    const records = fromTrees.actionablesFromTreeRows(rows, include);
    expectSameRecords(records, await prisma.actionable.findMany({ orderBy: { id: 'asc' } }), 'actionables');
    expect(records.some((a) => (fromTrees.references.get(a.id) as unknown[]).length > 0)).toBe(true);
    for (const a of records) {
      expectSameRecords(fromTrees.references.get(a.id) as object[], await throughPrisma.references.load(a.id), `${a.key} references`);
      expectSameRecords(fromTrees.addressedFactors.get(a.id) as object[], await throughPrisma.addressedFactors.load(a.id), `${a.key} addresses`);
      // The board's incident comes without its narrative (it is not in the statement).
      expectSameRecord(fromTrees.incident.get(a.incidentId) as object, (await throughPrisma.incident.load(a.incidentId))!, `${a.key} incident`, ['narrative']);
    }
  });

  it('sends only the actionables’ and patterns’ columns asked for, and keeps such records from code that reads whole ones', async () => {
    const ids = (await prisma.incident.findMany({ select: { id: true }, orderBy: { slug: 'asc' } })).map((i) => i.id);
    const slim = incidentTreeStatement('ids', { actionables: true, actionableColumns: [] }, true);
    expect(slim.text).not.toMatch(/a\."(title|description|closedAt|createdAt)"/);
    expect(incidentTreeStatement('ids', { actionables: true }, true).text).toMatch(/a\."description"/);
    // Every group named is the same statement as none named.
    expect(incidentTreeStatement('ids', { actionables: true, actionableColumns: ['stamps', 'words', 'followUp'] }, true)).toBe(incidentTreeStatement('ids', { actionables: true }, true));
    expect(incidentTreeStatement('ids', { actionables: true, actionableColumns: ['words'] }, true).name).not.toBe(slim.name);

    const loaders = new IncidentLoaders(prisma);
    const throughPrisma = new IncidentLoaders(prisma);
    const sent = await loaders.loadIncidentTrees({ ids }, { actionables: true, actionableColumns: ['followUp'] }, { includeDrafts: true });
    let compared = 0;
    for (const incident of sent) {
      const whole = await throughPrisma.actionables.load(incident.id);
      const asSelected = loaders.actionablesAsSelected.get(incident.id) as unknown as Record<string, unknown>[];
      expect(asSelected.length).toBe(whole.length);
      asSelected.forEach((a, i) => {
        compared++;
        const w = whole[i] as unknown as Record<string, unknown>;
        for (const k of ['id', 'incidentId', 'key', 'position', 'status', 'version', 'priority', 'closedBy', 'wontDoReason']) expect([k, a[k]]).toEqual([k, w[k]]);
        for (const k of ['dueDate', 'closedAt']) expect([k, (a[k] as Date | null)?.getTime() ?? null]).toEqual([k, (w[k] as Date | null)?.getTime() ?? null]);
        for (const k of ['title', 'description', 'owner', 'createdAt', 'updatedAt']) expect([k, a[k]]).toEqual([k, undefined]);
      });
      // The loader of whole records was not primed with them: it reads whole ones.
      expect(await loaders.actionables.load(incident.id)).toEqual(whole);
    }
    expect(compared).toBeGreaterThan(24);

    // Patterns without their descriptions, likewise.
    expect(incidentTreeStatement('ids', { patterns: true, patternColumns: [] }, true).text).not.toMatch(/p\."description"/);
    const withPatterns = new IncidentLoaders(prisma);
    await withPatterns.loadIncidentTrees({ ids }, { patterns: true, patternColumns: [] }, { includeDrafts: true });
    let patterns = 0;
    for (const id of ids) {
      const whole = await throughPrisma.patterns.load(id);
      const asSelected = withPatterns.patternsAsSelected.get(id) as unknown as Record<string, unknown>[];
      expect(asSelected.map((p) => [p.id, p.key, p.name, p.description])).toEqual(whole.map((p) => [p.id, p.key, p.name, undefined]));
      expect(await withPatterns.patterns.load(id)).toEqual(whole);
      patterns += whole.length;
    }
    expect(patterns).toBeGreaterThan(10);
  });

  it('names every combination of collections and column groups apart, within Postgres’s 63 characters', () => {
    const flags = ['narrative', 'patterns', 'timeline', 'factors', 'links', 'actionables', 'references', 'addresses'] as const;
    const subsets = <T>(items: readonly T[]): T[][] => items.reduce<T[][]>((all, x) => [...all, ...all.map((s) => [...s, x])], [[]]);
    const names = new Set<string>();
    let combinations = 0;
    for (const on of subsets(flags)) {
      const base: IncidentInclude = Object.fromEntries(on.map((f) => [f, true]));
      // Column groups matter only with their collection; absent and every group are one statement.
      const actionableStates = base.actionables ? [undefined, ...subsets(columnGroups('actionable')).filter((g) => g.length < 3)] : [undefined];
      const patternStates = base.patterns ? [undefined, ...subsets(columnGroups('pattern')).filter((g) => g.length < 1)] : [undefined];
      for (const actionableColumns of actionableStates) {
        for (const patternColumns of patternStates) {
          for (const by of ['ids', 'slug'] as const) {
            for (const drafts of [false, true]) {
              const { name } = incidentTreeStatement(by, { ...base, actionableColumns, patternColumns }, drafts);
              expect(name.length).toBeLessThanOrEqual(63);
              names.add(name);
              combinations++;
            }
          }
        }
      }
    }
    expect(combinations).toBe(6912);
    expect(names.size).toBe(combinations);
  });

  it('refuses a row without its tree, naming the column', () => {
    expect(() => treeOf({ id: 'x' })).toThrow(/"tree" column/);
  });

  it('builds a combination’s statement once, and one per combination', () => {
    const a = incidentTreeStatement('slug', { timeline: true, actionables: true });
    expect(incidentTreeStatement('slug', { actionables: true, timeline: true })).toBe(a);
    const b = incidentTreeStatement('slug', { timeline: true });
    expect(b.name).not.toBe(a.name);
    expect(b.text).not.toBe(a.text);
    expect(incidentTreeStatement('slug', { timeline: true }, true).name).not.toBe(b.name);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it('reads instants from before a time zone had standard time, whatever the session’s zone', async () => {
    const [incident] = await prisma.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Incident" ORDER BY "slug" LIMIT 1`;
    await prisma.$executeRaw`UPDATE "Incident" SET "startedAt" = '1883-11-18 12:00:00.123+00' WHERE "id" = ${incident!.id}::uuid`;
    await prisma.$executeRawUnsafe(`ALTER DATABASE "${new URL(db.url).pathname.slice(1)}" SET timezone = 'America/New_York'`);
    const inNewYork = testPrisma(db.url);
    try {
      // As text in that zone the instant carries a local-mean-time offset with seconds, which
      // JavaScript's Date cannot read: why the statements send epoch milliseconds instead.
      const { rows } = await inNewYork.pool.query(`SELECT row_to_json(r) AS j FROM (SELECT "startedAt" FROM "Incident" WHERE "id" = $1) r`, [incident!.id]);
      expect(rows[0].j.startedAt).toMatch(/-04:56:02$/);
      expect(Number.isNaN(new Date(rows[0].j.startedAt).getTime())).toBe(true);
      const [record] = await new IncidentLoaders(inNewYork).loadIncidentTrees({ ids: [incident!.id] }, all, { includeDrafts: true });
      expect(record!.startedAt!.toISOString()).toBe('1883-11-18T12:00:00.123Z');
    } finally {
      await inNewYork.onModuleDestroy();
    }
  });
});
