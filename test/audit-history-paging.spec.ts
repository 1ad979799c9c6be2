import type { PrismaService } from '@hindsight/db';
import { gid } from './support/global-ids';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const EXTRA = 640;

type Event = { note: string | null; version: number | null };
type Conn = { totalCount?: number; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null }; nodes: Event[] };

/** Audit trails longer than any page or former window page whole, both ways, by cursor. */
describe('history: keyset pages over a whole audit trail', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let actionableId: string;
  let otherActionableId: string;
  let trail: string[];

  const query = `query H($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
    node(id: $id) { ... on Actionable { history(first: $first, after: $after, last: $last, before: $before) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { note version } } } } }`;

  async function page(args: Record<string, unknown>, id = actionableId): Promise<Conn> {
    const res = await t.gql<{ node: { history: Conn } }>(query, { id: gid('Actionable', id), ...args });
    expect(res.errors).toBeUndefined();
    return res.data.node.history;
  }

  beforeAll(async () => {
    t = await startTestApp();
    prisma = testPrisma(t.db.url);
    const [a, b] = await prisma.actionable.findMany({ where: { incident: { slug: STACKEGG } }, orderBy: { key: 'asc' }, take: 2 });
    actionableId = a!.id;
    otherActionableId = b!.id;
    // A long trail, written as the audit trail records notes (fixture rows, numbered in order).
    await prisma.$executeRaw`
      INSERT INTO "AuditEvent" ("actor", "incidentId", "actionableId", "entity", "entityKey", "action", "field", "note", "version")
      SELECT 'fixture', ${a!.incidentId}::uuid, ${a!.id}::uuid, 'actionable', ${a!.key}, 'update', 'owner', 'step ' || n, n
      FROM generate_series(1, ${EXTRA}) AS n`;
    const rows = await prisma.auditEvent.findMany({ where: { actionableId: a!.id }, orderBy: { id: 'asc' }, select: { note: true } });
    trail = rows.map((r) => r.note ?? '');
    expect(trail.length).toBeGreaterThanOrEqual(EXTRA);
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('pages forward from the oldest event to the newest, every event once, and counts them all', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let first = true;
    for (let i = 0; i < 20; i++) {
      const c: Conn = await page({ first: 100, after });
      if (first) expect(c.totalCount).toBe(trail.length);
      expect(c.pageInfo.hasPreviousPage).toBe(!first);
      first = false;
      seen.push(...c.nodes.map((n) => n.note ?? ''));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(seen).toEqual(trail);
  });

  it('pages backward from the newest event to the oldest, each page oldest first', async () => {
    const pages: string[][] = [];
    let before: string | null = null;
    for (let i = 0; i < 20; i++) {
      const c: Conn = await page({ last: 75, before });
      expect(c.pageInfo.hasNextPage).toBe(before !== null);
      pages.unshift(c.nodes.map((n) => n.note ?? ''));
      if (!c.pageInfo.hasPreviousPage) break;
      before = c.pageInfo.startCursor;
    }
    expect(pages.flat()).toEqual(trail);
    expect(pages[pages.length - 1]!.at(-1)).toBe(`step ${EXTRA}`);
  });

  it('gives the events between two cursors', async () => {
    const a = await page({ first: 10 });
    const b = await page({ first: 10, after: a.pageInfo.endCursor });
    const between = await page({ first: 100, after: a.pageInfo.startCursor, before: b.pageInfo.endCursor });
    expect(between.nodes.map((n) => n.note)).toEqual(trail.slice(1, 19));
  });

  it("refuses a cursor of another record's trail, a cursor of another connection, and first with last", async () => {
    const mine = await page({ first: 1 });
    const other = await t.gql(query, { id: gid('Actionable', otherActionableId), first: 1, after: mine.pageInfo.endCursor });
    expect(other.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    const list = await t.gql<{ actionables: { pageInfo: { endCursor: string } } }>(`{ actionables(first: 1) { pageInfo { endCursor } } }`);
    const foreign = await t.gql(query, { id: gid('Actionable', actionableId), first: 1, after: list.data.actionables.pageInfo.endCursor });
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    // A cursor past the largest event id Postgres holds is malformed, not a server error.
    const huge = Buffer.from(JSON.stringify(['AT_ASC', '9999999999999999999', actionableId]), 'utf8').toString('base64url');
    const overflow = await t.gql(query, { id: gid('Actionable', actionableId), first: 1, after: huge });
    expect(overflow.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    const both = await t.gql(query, { id: gid('Actionable', actionableId), first: 1, last: 1 });
    expect(both.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'last' });
  });

  it("pages an incident's trail past its first events too", async () => {
    const q = `query($slug: String!, $before: String) { incident(slug: $slug) { history(last: 100, before: $before) { totalCount pageInfo { hasPreviousPage startCursor } nodes { note } } } }`;
    type R = { incident: { history: { totalCount: number; pageInfo: { hasPreviousPage: boolean; startCursor: string }; nodes: { note: string | null }[] } } };
    const newest = await t.gql<R>(q, { slug: STACKEGG, before: null });
    expect(newest.errors).toBeUndefined();
    const all = await prisma.auditEvent.count({ where: { incidentId: (await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG } })).id } });
    expect(newest.data.incident.history.totalCount).toBe(all);
    expect(newest.data.incident.history.nodes.at(-1)?.note).toBe(`step ${EXTRA}`);
    let before = newest.data.incident.history.pageInfo.startCursor;
    let seen = newest.data.incident.history.nodes.length;
    for (let i = 0; i < 20 && before; i++) {
      const r = await t.gql<R>(q, { slug: STACKEGG, before });
      seen += r.data.incident.history.nodes.length;
      before = r.data.incident.history.pageInfo.hasPreviousPage ? r.data.incident.history.pageInfo.startCursor : '';
    }
    expect(seen).toBe(all);
  });
});
