import type { PrismaService } from '@hindsight/db';
import { issueTokens } from './support/api-tokens';
import { gid } from './support/global-ids';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';

type Node = { key: string; priority: string | null; dueDate: string | null; status: string; overdue: boolean; owner: string | null };
type Page = { actionables: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: Node[] } };
type Counts = { total: number; open: number; inProgress: number; done: number; wontDo: number; overdue: number; medianOpenAgeDays: number | null };
type Stats = { actionableStats: Counts & { byOrganization: (Counts & { organization: string })[]; byPattern: (Counts & { patternKey: string; name: string })[] } };

const STATS = `{ actionableStats {
  total open inProgress done wontDo overdue medianOpenAgeDays
  byOrganization { organization total open inProgress done wontDo overdue medianOpenAgeDays }
  byPattern { patternKey name total open inProgress done wontDo overdue medianOpenAgeDays } } }`;

describe('actionable reads: priority order, tracking filters and stats', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let editor: Record<string, string>;

  const ids = async (slug: string) =>
    Object.fromEntries((await prisma.actionable.findMany({ where: { incident: { slug } }, select: { key: true, id: true, version: true } })).map((a) => [a.key, a]));

  async function patch(id: string, version: number, values: Record<string, unknown>) {
    const res = await t.gql(`mutation U($id: ID!, $v: Int!, $p: ActionablePatchInput!) { updateActionable(input: { id: $id, expectedVersion: $v, patch: $p }) { actionable { version } } }`, { id: gid('Actionable', id), v: version, p: values }, editor);
    expect(res.errors).toBeUndefined();
  }

  beforeAll(async () => {
    t = await startTestApp();
    prisma = testPrisma(t.db.url);
    editor = (await issueTokens(t)).as('editor');
    // StackEgg's three unfinished items get priorities and due dates; the rest stay without.
    const a = await ids(STACKEGG);
    await patch(a['measure-keep-alive-effect-via-client-timings']!.id, 1, { priority: 'P2', dueDate: '2099-01-10', owner: 'Perf' });
    await patch(a['watch-datacenter-performance']!.id, 1, { priority: 'P0', dueDate: '2099-03-01', owner: 'SRE' });
    await patch(a['internal-outage-discussion']!.id, 1, { priority: 'P2', dueDate: '2020-01-01', owner: 'sre' });
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('orders by priority, most urgent first, then by due date, items without a priority last, across pages', async () => {
    const query = `query P($after: String) { actionables(orderBy: PRIORITY, first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { key priority dueDate status overdue owner } } }`;
    const seen: Node[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 31; pages++) {
      const res: { data: Page; errors?: unknown } = await t.gql<Page>(query, { after });
      expect(res.errors).toBeUndefined();
      seen.push(...res.data.actionables.nodes);
      if (!res.data.actionables.pageInfo.hasNextPage) break;
      after = res.data.actionables.pageInfo.endCursor;
    }
    expect(seen).toHaveLength(29);
    expect(new Set(seen.map((n) => n.key)).size).toBe(29);
    expect(seen.slice(0, 3).map((n) => [n.key, n.priority, n.dueDate])).toEqual([
      ['watch-datacenter-performance', 'P0', '2099-03-01'],
      ['internal-outage-discussion', 'P2', '2020-01-01'],
      ['measure-keep-alive-effect-via-client-timings', 'P2', '2099-01-10'],
    ]);
    expect(seen.slice(3).every((n) => n.priority === null)).toBe(true);
  });

  it('filters by overdue, due date, owner (any case), status and external references', async () => {
    const keys = async (filter: Record<string, unknown>) => {
      const res = await t.gql<Page>(`query F($f: ActionableFilterInput) { actionables(filter: $f, first: 100) { totalCount nodes { key overdue } } }`, { f: filter });
      expect(res.errors).toBeUndefined();
      return res.data.actionables.nodes.map((n) => n.key).sort();
    };
    expect(await keys({ overdue: true })).toEqual(['internal-outage-discussion']);
    expect(await keys({ dueBefore: '2099-02-01' })).toEqual(['internal-outage-discussion', 'measure-keep-alive-effect-via-client-timings']);
    expect(await keys({ owner: 'SRE' })).toEqual(['internal-outage-discussion', 'watch-datacenter-performance']);
    expect(await keys({ owner: 'sre', status: ['DONE'] })).toEqual([]);
    expect(await keys({ incident: STACKEGG, hasExternalRef: true })).toEqual([]);
    const a = await ids(STACKEGG);
    await patch(a['watch-datacenter-performance']!.id, 2, { references: ['https://status.example.com/incidents/1'] });
    expect(await keys({ incident: STACKEGG, hasExternalRef: true })).toEqual(['watch-datacenter-performance']);
    const bad = await t.gql(`{ actionables(filter: { dueBefore: "next week" }) { totalCount } }`);
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.dueBefore' });
    // A due date is a day: an instant is refused rather than read in some zone.
    const instant = await t.gql(`query($d: Date) { actionables(filter: { dueBefore: $d }) { totalCount } }`, { d: '2099-02-01T00:00:00Z' });
    expect(instant.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.dueBefore' });
  });

  it('counts by status, overdue and median age of unfinished items, overall, per organization and per pattern', async () => {
    // Follow-ups that came with the postmortem are as old as the incident, not as the database:
    // the time they were stored plays no part, even when it is moved.
    const stackegg = await ids(STACKEGG);
    await prisma.$executeRaw`UPDATE "Actionable" SET "createdAt" = now() - make_interval(days => 3) WHERE id = ${stackegg['watch-datacenter-performance']!.id}::uuid`;
    const daysSince = (iso: string) => (Date.now() - Date.parse(iso)) / 86_400_000;

    const res = await t.gql<Stats>(STATS);
    expect(res.errors).toBeUndefined();
    const s = res.data.actionableStats;
    // The shipped seeds: 29 actionables, 12 done, 1 in progress, 1 won't do, 15 open; one made overdue above.
    expect(s).toMatchObject({ total: 29, open: 15, inProgress: 1, done: 12, wontDo: 1, overdue: 1 });
    const byOrg = Object.fromEntries(s.byOrganization.map((o) => [o.organization, o]));
    expect(Object.keys(byOrg).sort()).toEqual(['Independent operator (zomo tech)', 'Slack', 'Stack Exchange', 'Wikimedia Foundation']);
    expect(byOrg['Independent operator (zomo tech)']).toMatchObject({ total: 2, open: 0, done: 2, overdue: 0, medianOpenAgeDays: null });
    expect(byOrg['Stack Exchange']).toMatchObject({ total: 7, open: 2, inProgress: 1, done: 4, overdue: 1 });
    // Raised with the postmortem: counted from the incident's resolution (StackEgg, 2015-04-01) and
    // ChangeProp's (2016-05-05). Done items do not count towards the age of unfinished work.
    expect(byOrg['Stack Exchange']!.medianOpenAgeDays).toBeCloseTo(daysSince('2015-04-01T15:37:38Z'), 1);
    expect(byOrg['Wikimedia Foundation']!.medianOpenAgeDays).toBeCloseTo(daysSince('2016-05-05T03:30:00Z'), 1);
    expect(byOrg['Wikimedia Foundation']).toMatchObject({ total: 12, open: 9, done: 2, wontDo: 1 });
    const byPattern = Object.fromEntries(s.byPattern.map((p) => [p.patternKey, p]));
    expect(byPattern['missing-timeout']).toMatchObject({ name: 'Missing timeout', total: 2, open: 0 });
    expect(byPattern['connection-cap']).toMatchObject({ total: 7, overdue: 1 });
    expect(byPattern['resource-exhaustion']!.total).toBe(2 + 12 + 7);

    const started = await prisma.actionable.findFirstOrThrow({ where: { key: 'fix-mcrib-control-loop' } });
    const moved = await t.gql(`mutation { transitionActionable(input: { id: "${gid('Actionable', started.id)}", to: IN_PROGRESS, expectedVersion: ${started.version} }) { actionable { status } } }`, {}, editor);
    expect(moved.errors).toBeUndefined();
    const after = (await t.gql<Stats>(STATS)).data.actionableStats;
    expect(after).toMatchObject({ open: 14, inProgress: 2 });
    expect(after.byOrganization.find((o) => o.organization === 'Slack')).toMatchObject({ open: 3, inProgress: 1 });
  });

  it('counts a follow-up raised here from its creation, and dates closed seeded items from their incident', async () => {
    const created = await t.gql<{ createActionable: { actionable: { id: string } } }>(
      `mutation { createActionable(input: { incident: "apache-outbound-calls-without-timeouts-2011", title: "Alert on idle but full worker pools" }) { actionable { id } } }`,
      {},
      editor,
    );
    expect(created.errors).toBeUndefined();
    const stats = (await t.gql<Stats>(STATS)).data.actionableStats;
    const zomo = stats.byOrganization.find((o) => o.organization === 'Independent operator (zomo tech)')!;
    expect(zomo.open).toBe(1);
    expect(zomo.medianOpenAgeDays!).toBeLessThan(0.01);

    type Closed = { incident: { actionables: { key: string; status: string; closedAt: string | null; closedAtRecorded: boolean }[] } };
    const seeded = await t.gql<Closed>(`{ incident(slug: "${STACKEGG}") { actionables { key status closedAt closedAtRecorded } } }`);
    const done = seeded.data.incident.actionables.filter((a) => a.status === 'DONE');
    expect(done.length).toBeGreaterThan(0);
    expect(done.every((a) => a.closedAt === '2015-04-01T15:37:38.000Z' && a.closedAtRecorded === false)).toBe(true);
    expect(seeded.data.incident.actionables.filter((a) => a.status === 'OPEN').every((a) => a.closedAt === null)).toBe(true);
  });
});
