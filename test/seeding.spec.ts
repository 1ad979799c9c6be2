import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { AppError, validateIncidentDocument } from '@hindsight/domain';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

const seeds = () => readSeedFiles(path.join(projectRoot(), 'seeds'));

describe('seeding the shipped incidents', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase({ migrate: true });
  });
  afterEach(async () => {
    await db.drop();
  });

  /** Every row of every table, ordered, so two snapshots compare exactly. */
  async function snapshot(prisma: ReturnType<typeof testPrisma>) {
    return {
      incidents: await prisma.incident.findMany({ orderBy: { slug: 'asc' } }),
      timeline: await prisma.timelineEvent.findMany({ orderBy: { id: 'asc' } }),
      factors: await prisma.causalFactor.findMany({ orderBy: { id: 'asc' } }),
      links: await prisma.causalLink.findMany({ orderBy: { id: 'asc' } }),
      actionables: await prisma.actionable.findMany({ orderBy: { id: 'asc' } }),
      references: await prisma.externalReference.findMany({ orderBy: { id: 'asc' } }),
      addressed: await prisma.actionableFactor.findMany({ orderBy: [{ actionableId: 'asc' }, { factorId: 'asc' }] }),
      patterns: await prisma.pattern.findMany({ orderBy: { key: 'asc' } }),
      incidentPatterns: await prisma.incidentPattern.findMany({ orderBy: [{ incidentId: 'asc' }, { patternId: 'asc' }] }),
    };
  }

  it('is idempotent: a second run changes no row, not even a version or timestamp', async () => {
    const prisma = testPrisma(db.url);
    try {
      const first = await seedDatabase(prisma, seeds());
      expect(first.incidents.every((i) => i.created)).toBe(true);
      const before = await snapshot(prisma);
      expect(before.incidents).toHaveLength(4);
      const second = await seedDatabase(prisma, seeds());
      expect(second.incidents.map((i) => i.changed)).toEqual([false, false, false, false]);
      expect(await snapshot(prisma)).toEqual(before);
    } finally {
      await prisma.onModuleDestroy();
    }
  });

  it('carries every timeline entry, factor and actionable of each source', async () => {
    const prisma = testPrisma(db.url);
    try {
      await seedDatabase(prisma, seeds());
      const counts = await prisma.incident.findMany({
        orderBy: { slug: 'asc' },
        select: { slug: true, _count: { select: { timeline: true, factors: true, links: true, actionables: true } } },
      });
      expect(Object.fromEntries(counts.map((c) => [c.slug, c._count]))).toEqual({
        'apache-outbound-calls-without-timeouts-2011': { timeline: 10, factors: 12, links: 11, actionables: 2 },
        'changeprop-feedback-loop-2016': { timeline: 9, factors: 23, links: 27, actionables: 12 },
        'slack-cache-metastability-2022': { timeline: 10, factors: 14, links: 16, actionables: 8 },
        'stackegg-haproxy-session-cap-2015': { timeline: 18, factors: 6, links: 5, actionables: 7 },
      });
      const stackegg = await prisma.timelineEvent.findMany({
        where: { incident: { slug: 'stackegg-haproxy-session-cap-2015' } },
        orderBy: { position: 'asc' },
        select: { asWritten: true, at: true },
      });
      // The second day of StackEgg's timeline: same clock format, next date.
      const firstApril = stackegg.find((e) => e.asWritten === '10:19:00')!;
      expect(firstApril.at!.toISOString()).toBe('2015-04-01T10:19:00.000Z');
    } finally {
      await prisma.onModuleDestroy();
    }
  });

  it('is transactional: one invalid incident leaves the database exactly as it was', async () => {
    const prisma = testPrisma(db.url);
    try {
      const set = seeds();
      const broken = { ...set, incidents: [...set.incidents, { ...set.incidents[0]!, slug: 'broken-copy', patterns: ['no-such-pattern'] }] };
      const error = await seedDatabase(prisma, broken).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toMatch(/patterns: unknown pattern "no-such-pattern"/);
      expect(await prisma.incident.count()).toBe(0);
      expect(await prisma.pattern.count()).toBe(0);
    } finally {
      await prisma.onModuleDestroy();
    }
  });

  it('never overwrites an incident that people have since edited or tracked', async () => {
    const prisma = testPrisma(db.url);
    try {
      await seedDatabase(prisma, seeds());
      const tracked = await prisma.actionable.findFirstOrThrow({ where: { incident: { slug: 'stackegg-haproxy-session-cap-2015' }, status: 'open' } });
      await prisma.actionable.update({ where: { id: tracked.id }, data: { status: 'in_progress', owner: 'sre-team', version: { increment: 1 } } });
      await prisma.incident.update({ where: { slug: 'slack-cache-metastability-2022' }, data: { title: 'Corrected title', version: { increment: 1 } } });
      const report = await seedDatabase(prisma, seeds());
      expect(report.incidents.every((i) => !i.created && !i.changed)).toBe(true);
      expect(await prisma.actionable.findUniqueOrThrow({ where: { id: tracked.id } })).toMatchObject({ status: 'in_progress', owner: 'sre-team', version: tracked.version + 1 });
      expect((await prisma.incident.findUniqueOrThrow({ where: { slug: 'slack-cache-metastability-2022' } })).title).toBe('Corrected title');
    } finally {
      await prisma.onModuleDestroy();
    }
  });

  it("rewrites the search of every incident with a pattern whose name a later seed changes, and nothing else", async () => {
    const prisma = testPrisma(db.url);
    try {
      const shipped = seeds();
      await seedDatabase(prisma, shipped);
      const key = 'retry-amplification';
      const holders = (await prisma.incidentPattern.findMany({ where: { pattern: { key } }, select: { incident: { select: { slug: true } } } })).map((h) => h.incident.slug).sort();
      expect(holders.length).toBeGreaterThan(0);
      const matching = async (word: string) =>
        (await prisma.$queryRaw<{ slug: string }[]>`SELECT "slug" FROM "Incident" WHERE "searchDocument" @@ plainto_tsquery('simple', ${word}) ORDER BY "slug"`).map((r) => r.slug);
      expect(await matching('wildebeest')).toEqual([]);
      const before = await prisma.incident.findMany({ orderBy: { slug: 'asc' }, select: { slug: true, version: true, updatedAt: true } });
      const renamed = { ...shipped, patterns: shipped.patterns.map((p) => (p.key === key ? { ...p, name: 'Wildebeest retry stampede' } : p)) };
      await seedDatabase(prisma, renamed);
      expect(await matching('wildebeest')).toEqual(holders);
      // The incidents' own records did not change.
      expect(await prisma.incident.findMany({ orderBy: { slug: 'asc' }, select: { slug: true, version: true, updatedAt: true } })).toEqual(before);
    } finally {
      await prisma.onModuleDestroy();
    }
  });

  it('names the file and field of a bad seed before writing anything', () => {
    const doc = { ...seeds().incidents[0]!, timeline: [{ key: 'x', asWritten: '02:3X', at: '2016-05-05 02:30', precision: 'ten_minutes', kind: 'trigger', text: 'x' }] };
    expect(() => validateIncidentDocument(doc, 'incidents/x.json')).toThrow(/incidents\/x\.json\.timeline\[0\]\.at: expected an ISO 8601 instant/);
  });
});
