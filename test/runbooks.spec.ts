import type { PrismaService } from '@hindsight/db';
import { issueTokens } from './support/api-tokens';
import { gid } from './support/global-ids';
import { tableHashes } from './support/table-hash';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const RUNBOOK = 'https://wiki.example.com/runbooks/haproxy-session-cap';

const CITE = `mutation($i: CiteInRunbookInput!) { citeInRunbook(input: $i) { created citation { id kind citedBy recordId runbook { id url title } } } }`;

describe('runbook backlinks over GraphQL', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let as: Awaited<ReturnType<typeof issueTokens>>['as'];

  const actionable = (key: string) => prisma.actionable.findFirstOrThrow({ where: { key, incident: { slug: STACKEGG } } });

  beforeAll(async () => {
    t = await startTestApp();
    prisma = testPrisma(t.db.url);
    ({ as } = await issueTokens(t));
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('registers a citation of each kind of record, lists it on the record, and is idempotent', async () => {
    const incident = await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG } });
    const factor = await prisma.causalFactor.findFirstOrThrow({ where: { incidentId: incident.id }, orderBy: { position: 'asc' } });
    const item = await actionable('watch-datacenter-performance');
    const pattern = await prisma.pattern.findFirstOrThrow({ where: { incidents: { some: { incidentId: incident.id } } } });
    const targets = [gid('Incident', incident.id), gid('CausalFactor', factor.id), gid('Actionable', item.id), gid('Pattern', pattern.id)];
    for (const target of targets) {
      const res = await t.gql<{ citeInRunbook: { created: boolean; citation: { kind: string; recordId: string; citedBy: string } } }>(CITE, { i: { url: RUNBOOK, title: 'HAProxy session cap', target } }, as('editor'));
      expect(res.errors).toBeUndefined();
      expect(res.data.citeInRunbook.created).toBe(true);
      expect(res.data.citeInRunbook.citation.recordId).toBe(target);
      expect(res.data.citeInRunbook.citation.citedBy).toBe('editor-token');
    }
    const again = await t.gql<{ citeInRunbook: { created: boolean } }>(CITE, { i: { url: RUNBOOK, title: 'HAProxy session cap', target: targets[0] } }, as('editor'));
    expect(again.data.citeInRunbook.created).toBe(false);
    expect(await prisma.runbook.count()).toBe(1);
    expect(await prisma.runbookCitation.count()).toBe(4);

    const read = await t.gql<{
      incident: { citedBy: { totalCount: number; nodes: { runbook: { url: string; title: string } }[] }; causalFactors: { key: string; citedBy: { totalCount: number } }[]; actionables: { key: string; citedBy: { totalCount: number } }[] };
    }>(`{ incident(slug: "${STACKEGG}") { citedBy { totalCount nodes { runbook { url title } } } causalFactors { key citedBy { totalCount } } actionables { key citedBy { totalCount } } } }`);
    expect(read.errors).toBeUndefined();
    expect(read.data.incident.citedBy.nodes).toEqual([{ runbook: { url: RUNBOOK, title: 'HAProxy session cap' } }]);
    expect(read.data.incident.causalFactors.find((f) => f.key === factor.key)!.citedBy.totalCount).toBe(1);
    expect(read.data.incident.actionables.filter((a) => a.citedBy.totalCount > 0).map((a) => a.key)).toEqual(['watch-datacenter-performance']);
    const byPattern = await t.gql<{ pattern: { citedBy: { totalCount: number } } }>(`{ pattern(key: "${pattern.key}") { citedBy { totalCount } } }`);
    expect(byPattern.data.pattern.citedBy.totalCount).toBe(1);

    // Both are Nodes: fetched again by their global ids.
    const citation = await prisma.runbookCitation.findFirstOrThrow({ where: { actionableId: item.id }, include: { runbook: true } });
    const refetched = await t.gql<{ nodes: [{ kind: string; runbook: { url: string } }, { title: string }] }>(
      `query($ids: [ID!]!) { nodes(ids: $ids) { ... on RunbookCitation { kind runbook { url } } ... on Runbook { title } } }`,
      { ids: [gid('RunbookCitation', citation.id), gid('Runbook', citation.runbook.id)] },
    );
    expect(refetched.data.nodes).toEqual([{ kind: 'ACTIONABLE', runbook: { url: RUNBOOK } }, { title: 'HAProxy session cap' }]);

    const audit = await prisma.auditEvent.findMany({ where: { entity: 'runbook' }, orderBy: { id: 'asc' } });
    expect(audit.map((e) => [e.action, e.field, e.to])).toEqual([
      ['create', null, { url: RUNBOOK, title: 'HAProxy session cap' }],
      ['update', 'cites', `incident:${STACKEGG}`],
      ['update', 'cites', `causal_factor:${STACKEGG}/${factor.key}`],
      ['update', 'cites', `actionable:${STACKEGG}/watch-datacenter-performance`],
      ['update', 'cites', `pattern:${pattern.key}`],
    ]);
  });

  it('refuses bad input with the field and reason, and ids of things a runbook cannot cite', async () => {
    const incident = await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG } });
    const before = await tableHashes(t.db.url);
    const bad = await t.gql(CITE, { i: { url: 'ftp://x', title: ' ', target: gid('Incident', incident.id) } }, as('editor'));
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((bad.errors?.[0]?.extensions?.problems as { field: string }[]).map((p) => p.field)).toEqual(['input.url', 'input.title']);
    const token = await prisma.apiToken.findFirstOrThrow();
    const wrong = await t.gql(CITE, { i: { url: RUNBOOK, title: 'x', target: gid('ApiToken', token.id) } }, as('editor'));
    expect(wrong.errors?.[0]?.extensions?.problems).toEqual([{ field: 'input.target', reason: expect.stringContaining('a runbook cites an Incident') }]);
    const viewer = await t.gql(CITE, { i: { url: RUNBOOK, title: 'x', target: gid('Incident', incident.id) } }, as('viewer'));
    expect(viewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await tableHashes(t.db.url)).toEqual(before);
  });

  it('gives a notice naming the citing runbooks when a cited follow-up is closed or retitled, and when a cited incident is renamed', async () => {
    const item = await actionable('watch-datacenter-performance');
    const retitle = await t.gql<{ updateActionable: { notices: { change: string; kind: string; recordId: string; message: string; runbooks: { url: string }[] }[] } }>(
      `mutation($i: UpdateActionableInput!) { updateActionable(input: $i) { notices { change kind recordId message runbooks { url } } } }`,
      { i: { id: gid('Actionable', item.id), expectedVersion: item.version, patch: { title: 'Watch datacenter performance closely' } } },
      as('editor'),
    );
    expect(retitle.errors).toBeUndefined();
    expect(retitle.data.updateActionable.notices).toEqual([
      { change: 'RETITLED', kind: 'ACTIONABLE', recordId: gid('Actionable', item.id), message: expect.stringContaining('“HAProxy session cap”'), runbooks: [{ url: RUNBOOK }] },
    ]);
    const moves = [['IN_PROGRESS', []], ['DONE', ['CLOSED']]] as const;
    let version = item.version + 1;
    for (const [to, expected] of moves) {
      const res = await t.gql<{ transitionActionable: { notices: { change: string }[] } }>(
        `mutation { transitionActionable(input: { id: "${gid('Actionable', item.id)}", to: ${to}, expectedVersion: ${version} }) { notices { change } } }`,
        {},
        as('editor'),
      );
      expect(res.errors).toBeUndefined();
      expect(res.data.transitionActionable.notices.map((n) => n.change)).toEqual(expected);
      version += 1;
    }
    // An uncited follow-up closes without a notice.
    const other = await actionable('measure-keep-alive-effect-via-client-timings');
    const quiet = await t.gql<{ updateActionable: { notices: unknown[] } }>(
      `mutation($i: UpdateActionableInput!) { updateActionable(input: $i) { notices { change } } }`,
      { i: { id: gid('Actionable', other.id), expectedVersion: other.version, patch: { title: 'Measure keep-alive effect' } } },
      as('editor'),
    );
    expect(quiet.data.updateActionable.notices).toEqual([]);

    const incident = await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG } });
    const renamed = await t.gql<{ updateIncident: { incident: { slug: string }; notices: { change: string; runbooks: { url: string }[] }[] } }>(
      `mutation($v: Int!) { updateIncident(input: { slug: "${STACKEGG}", expectedVersion: $v, patch: { slug: "stackegg-2015" } }) { incident { slug } notices { change runbooks { url } } } }`,
      { v: incident.version },
      as('editor'),
    );
    expect(renamed.errors).toBeUndefined();
    expect(renamed.data.updateIncident.notices).toEqual([{ change: 'RENAMED', runbooks: [{ url: RUNBOOK }] }]);
  });

  it('removes a citation, audited, and keeps the runbook for its other citations', async () => {
    const list = await t.gql<{ incident: { id: string; citedBy: { nodes: { id: string }[] } } }>(`{ incident(slug: "stackegg-2015") { id citedBy { nodes { id } } } }`);
    const citationId = list.data.incident.citedBy.nodes[0]!.id;
    const viewer = await t.gql(`mutation { removeRunbookCitation(input: { citationId: "${citationId}" }) { removedCitationId } }`, {}, as('viewer'));
    expect(viewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const res = await t.gql<{ removeRunbookCitation: { removedCitationId: string; runbook: { url: string } } }>(
      `mutation { removeRunbookCitation(input: { citationId: "${citationId}" }) { removedCitationId runbook { url } } }`,
      {},
      as('editor'),
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.removeRunbookCitation).toEqual({ removedCitationId: citationId, runbook: { url: RUNBOOK } });
    expect(await prisma.runbookCitation.count()).toBe(3);
    const again = await t.gql(`mutation { removeRunbookCitation(input: { citationId: "${citationId}" }) { removedCitationId } }`, {}, as('editor'));
    expect(again.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const last = await prisma.auditEvent.findFirstOrThrow({ where: { entity: 'runbook' }, orderBy: { id: 'desc' } });
    expect([last.field, last.from, last.to]).toEqual(['cites', 'incident:stackegg-2015', null]);
  });

  it('concurrent registrations of one citation create one runbook and one citation', async () => {
    const item = await prisma.actionable.findFirstOrThrow({ where: { key: 'internal-outage-discussion' } });
    const url = 'https://wiki.example.com/runbooks/concurrent';
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.gql<{ citeInRunbook: { created: boolean } }>(CITE, { i: { url, title: 'Concurrent', target: gid('Actionable', item.id) } }, as('editor'))),
    );
    expect(results.map((r) => r.errors)).toEqual(Array(6).fill(undefined));
    expect(results.filter((r) => r.data.citeInRunbook.created)).toHaveLength(1);
    expect(await prisma.runbook.count({ where: { url } })).toBe(1);
    expect(await prisma.runbookCitation.count({ where: { runbook: { url } } })).toBe(1);
  });
});
