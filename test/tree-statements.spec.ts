import { PrismaService } from '@hindsight/db';
import { actionableTreeColumns, incidentTreeColumns, incidentTreeStatement, loadSyntheticCorpus, treeOf, treeRow } from '@hindsight/incidents';
import { testPrisma, createTestDatabase, type TestDatabase } from './support/test-db';

/**
 * The tree statements answer each row as one JSON column (`treeRow`). Their values must be the
 * ones a column per field gives, once an instant read from JSON is made a Date, as the loaders
 * do: numbers stay numbers, arrays arrays, nulls nulls, on the four shipped incidents and a
 * synthetic corpus (severities, near misses, tags, customer impact, original-language text).
 */
describe('tree statements', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    prisma = testPrisma(db.url);
    await loadSyntheticCorpus(prisma, { incidents: 20, seed: 5, batchSize: 20 });
  }, 300_000);
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await db.drop();
  });

  const all = { narrative: true, patterns: true, timeline: true, factors: true, links: true, actionables: true, references: true, addresses: true };

  /** A value of a column-per-field row beside the same value read from the tree's JSON. */
  function expectSameValues(columns: Record<string, unknown>, tree: Record<string, unknown>): void {
    expect(Object.keys(tree)).toEqual(Object.keys(columns));
    for (const [key, value] of Object.entries(columns)) {
      if (value instanceof Date) expect([key, new Date(tree[key] as string).getTime()]).toEqual([key, value.getTime()]);
      else expect([key, tree[key]]).toEqual([key, value]);
    }
  }

  it('answers an incident with every nested collection with the values of a column per field', async () => {
    const ids = (await prisma.incident.findMany({ select: { id: true }, orderBy: { slug: 'asc' } })).map((i) => i.id);
    expect(ids.length).toBe(24);
    const statement = incidentTreeStatement('ids', all, true);
    const trees = (await prisma.pool.query({ ...statement, values: [ids] })).rows.map(treeOf);
    const columns = (await prisma.pool.query(`SELECT ${incidentTreeColumns(all)} FROM "Incident" i WHERE i."id" = ANY($1::uuid[])`, [ids])).rows;
    expect(trees.length).toBe(24);
    const byId = new Map(trees.map((t) => [t.id, t]));
    for (const row of columns) expectSameValues(row, byId.get(row.id)!);
    // The corpus holds the kinds of value that differ between the two forms.
    expect(columns.some((r) => typeof r.customerImpactMinutes === 'number')).toBe(true);
    expect(columns.some((r) => r.nearMiss === true)).toBe(true);
    expect(columns.some((r) => Array.isArray(r.tags) && r.tags.length > 0)).toBe(true);
    expect(columns.some((r) => r.mitigatedAt === null)).toBe(true);
  });

  it('answers an actionable with its references, addressed factors and incident with the values of a column per field', async () => {
    const include = { references: true, addresses: true, incident: true };
    const from = `FROM "Actionable" a ORDER BY a."id"`;
    const trees = (await prisma.pool.query(`SELECT ${treeRow(actionableTreeColumns(include))} ${from}`)).rows.map(treeOf);
    const columns = (await prisma.pool.query(`SELECT ${actionableTreeColumns(include)} ${from}`)).rows;
    expect(trees.length).toBe(columns.length);
    expect(columns.some((r) => (r.j_references as unknown[]).length > 0)).toBe(true);
    columns.forEach((row, i) => expectSameValues(row, trees[i]!));
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
});
