import { GraphQLClient } from 'graphql-request';
import { loadSyntheticCorpus } from '@hindsight/incidents';
import { AccountsService, ApiTokensService } from '@hindsight/tracking';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

type PageInfo = { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
type Connection = { totalCount: number; pageInfo: PageInfo; edges: { cursor: string; node: { id: string } }[] };

/**
 * Every connection of the schema, paged with a real client library (graphql-request) against
 * the booted app: page by page forward until hasNextPage is false and, where the connection
 * pages backward, back again from the end; every item once, in one order both ways, and
 * totalCount equal to what was paged.
 */
describe('paging every connection with graphql-request', () => {
  let t: TestApp;
  let client: GraphQLClient;
  let admin: GraphQLClient;
  let editor: GraphQLClient;
  let historySlug: string;
  let historyActionable: string;
  let foreignPatternCursor: string;
  let foreignIncidentCursor: string;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    const url = `${await t.app.getUrl()}/graphql`;
    client = new GraphQLClient(url);
    const tokens = await issueTokens(t);
    admin = new GraphQLClient(url, { headers: tokens.as('admin') });
    editor = new GraphQLClient(url, { headers: tokens.as('editor') });
    // More tokens than one page, so paging apiTokens crosses pages both ways.
    const prisma = testPrisma(t.db.url);
    const apiTokens = new ApiTokensService(prisma);
    for (let i = 0; i < 4; i++) await apiTokens.create(`paging-${i}`, 'viewer', { name: 'test-setup', tokenId: null });
    const accounts = new AccountsService(prisma, { passwordHashRounds: 4, sessionIdleSeconds: 3600, sessionMaxAgeSeconds: 3600 });
    for (const name of ['ana', 'bo', 'cy', 'dee', 'eli']) await accounts.create(`paging-${name}`, 'viewer', { name: 'test-setup', tokenId: null });
    // An audit trail longer than a page, on one incident and one of its actionables, written by the API itself.
    const first: { actionables: { nodes: { id: string; version: number; incident: { slug: string } }[] } } = await client.request(`{ actionables(first: 1) { nodes { id version incident { slug } } } }`);
    const target = first.actionables.nodes[0]!;
    historySlug = target.incident.slug;
    historyActionable = target.id;
    let version = target.version;
    for (let i = 0; i < 5; i++) {
      const res: { updateActionable: { actionable: { version: number } } } = await editor.request(
        `mutation($input: UpdateActionableInput!) { updateActionable(input: $input) { actionable { version } } }`,
        { input: { id: target.id, expectedVersion: version, patch: { owner: `paging-owner-${i}` } } },
      );
      version = res.updateActionable.actionable.version;
    }
    // Eight synthetic incidents more, four of them back to drafts: every connection then holds
    // more than a page of two both ways.
    await loadSyntheticCorpus(prisma, { incidents: 8, seed: 1, batchSize: 100 });
    const drafts = await prisma.incident.findMany({ where: { slug: { startsWith: 'synth-' } }, orderBy: { slug: 'desc' }, take: 4, select: { id: true } });
    for (const d of drafts) await prisma.incident.update({ where: { id: d.id }, data: { status: 'draft' } });
    await prisma.onModuleDestroy();
    const p: { patterns: Connection } = await client.request(`{ patterns(first: 1) { ${SELECTION} } }`);
    foreignPatternCursor = p.patterns.pageInfo.endCursor!;
    const i: { incidents: Connection } = await client.request(`{ incidents(first: 1) { ${SELECTION} } }`);
    foreignIncidentCursor = i.incidents.pageInfo.endCursor!;
  });
  afterAll(() => t.close());

  const SELECTION = 'totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } }';

  /** A connection to page: who asks, the query around `(args) { selection }`, and where its connection sits in the answer. */
  interface Target {
    c: GraphQLClient;
    query: (args: string, selection: string) => string;
    pick: (data: any) => Connection;
  }
  const root = (field: string, c: () => GraphQLClient): (() => Target) => () => ({
    c: c(),
    query: (args, selection) => `{ ${field}(${args}) { ${selection} } }`,
    pick: (data) => data[field],
  });
  // Drafts have no id of their own: their incident's stands for them.
  const DRAFT_SELECTION = SELECTION.replace('node { id }', 'node { id: incident { id } }');
  const targets: Record<string, () => Target> = {
    incidents: root('incidents', () => client),
    actionables: root('actionables', () => client),
    patterns: root('patterns', () => client),
    apiTokens: root('apiTokens', () => admin),
    accounts: root('accounts', () => admin),
    draftIncidents: () => ({
      c: editor,
      query: (args) => `{ draftIncidents(${args}) { ${DRAFT_SELECTION} } }`,
      pick: (data) => ({ ...data.draftIncidents, edges: data.draftIncidents.edges.map((e: any) => ({ cursor: e.cursor, node: { id: e.node.id.id } })) }),
    }),
    'Incident.history': () => ({
      c: client,
      query: (args, selection) => `{ incident(slug: "${historySlug}") { history(${args}) { ${selection} } } }`,
      pick: (data) => data.incident.history,
    }),
    'Actionable.history': () => ({
      c: client,
      query: (args, selection) => `{ node(id: "${historyActionable}") { ... on Actionable { history(${args}) { ${selection} } } } }`,
      pick: (data) => data.node.history,
    }),
  };

  async function forward(t: Target, size: number): Promise<{ ids: string[]; total: number; pages: number }> {
    const ids: string[] = [];
    let after: string | null = null;
    let total = -1;
    let pages = 0;
    for (;;) {
      const args: string = `first: ${size}${after ? `, after: ${JSON.stringify(after)}` : ''}`;
      const page = t.pick(await t.c.request(t.query(args, SELECTION)));
      pages++;
      total = page.totalCount;
      ids.push(...page.edges.map((e) => e.node.id));
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    return { ids, total, pages };
  }

  async function backward(t: Target, size: number): Promise<string[]> {
    const ids: string[] = [];
    let before: string | null = null;
    for (;;) {
      const args: string = `last: ${size}${before ? `, before: ${JSON.stringify(before)}` : ''}`;
      const page = t.pick(await t.c.request(t.query(args, SELECTION)));
      ids.unshift(...page.edges.map((e) => e.node.id));
      expect(page.pageInfo.hasNextPage).toBe(before !== null);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    return ids;
  }

  it.each(Object.keys(targets))('pages %s forward one by one to the end, and backward to the start', async (name) => {
    const target = targets[name]!();
    const all = await forward(target, 100);
    expect(all.pages).toBe(1);
    expect(all.ids.length).toBe(all.total);
    expect(all.total).toBeGreaterThan(2);
    expect(new Set(all.ids).size).toBe(all.ids.length);
    const paged = await forward(target, 2);
    expect(paged.ids).toEqual(all.ids);
    expect(paged.pages).toBe(Math.ceil(all.total / 2));
    expect(await backward(target, 2)).toEqual(all.ids);
  });

  it.each(Object.keys(targets))('%s: a page between two cursors, and a cursor of another connection refused', async (name) => {
    const target = targets[name]!();
    const all = target.pick(await target.c.request(target.query('first: 100', SELECTION)));
    const [a, , , d] = all.edges;
    const between = target.pick(await target.c.request(target.query(`first: 10, after: ${JSON.stringify(a!.cursor)}, before: ${JSON.stringify(d!.cursor)}`, SELECTION)));
    expect(between.edges.map((e) => e.node.id)).toEqual(all.edges.slice(1, 3).map((e) => e.node.id));
    expect(between.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    // Every connection's cursors are refused by every other (patterns' by the rest, incidents' by patterns).
    const foreign = name === 'patterns' ? foreignIncidentCursor : foreignPatternCursor;
    await expect(target.c.request(target.query(`last: 1, before: ${JSON.stringify(foreign)}`, 'totalCount'))).rejects.toMatchObject({
      response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'before' }) })] },
    });
  });

  it('refuses a cursor of another ordering with BAD_USER_INPUT naming the argument', async () => {
    const data: { incidents: Connection } = await client.request(`{ incidents(first: 1, orderBy: TITLE_ASC) { ${SELECTION} } }`);
    const cursor = data.incidents.pageInfo.endCursor;
    await expect(client.request(`query($a: String) { incidents(first: 1, after: $a, orderBy: STARTED_AT_DESC) { totalCount } }`, { a: cursor })).rejects.toMatchObject({
      response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'after' }) })] },
    });
    await expect(client.request(`query($b: String) { incidents(last: 1, before: $b, orderBy: STARTED_AT_DESC) { totalCount } }`, { b: cursor })).rejects.toMatchObject({
      response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'before' }) })] },
    });
    const actionables: { actionables: Connection } = await client.request(`{ actionables(last: 1, orderBy: PRIORITY) { ${SELECTION} } }`);
    await expect(client.request(`query($b: String) { actionables(last: 1, before: $b, orderBy: DUE_DATE_ASC) { totalCount } }`, { b: actionables.actionables.pageInfo.startCursor })).rejects.toMatchObject({
      response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'before' }) })] },
    });
    const patterns: { patterns: Connection } = await client.request(`{ patterns(first: 1) { ${SELECTION} } }`);
    await expect(admin.request(`query($a: String) { apiTokens(first: 1, after: $a) { totalCount } }`, { a: patterns.patterns.pageInfo.endCursor })).rejects.toMatchObject({
      response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'after' }) })] },
    });
  });

  it.each(['patterns', 'incidents', 'actionables'])('%s refuses a page larger than 100 and first with last', async (field) => {
    for (const args of ['last: 101', 'first: 1, last: 1']) {
      await expect(client.request(`{ ${field}(${args}) { totalCount } }`)).rejects.toMatchObject({
        response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'last' }) })] },
      });
    }
  });

  it('pages incidents backward under every ordering, a search by relevance included', async () => {
    for (const [orderBy, filter] of [['TITLE_ASC', null], ['STARTED_AT_ASC', null], ['UPDATED_AT_DESC', null], ['RELEVANCE', { text: 'database' }]] as const) {
      const q = `query($n: Int, $a: String, $l: Int, $b: String, $f: IncidentFilterInput) { incidents(first: $n, after: $a, last: $l, before: $b, orderBy: ${orderBy}, filter: $f) { ${SELECTION} } }`;
      const all: { incidents: Connection } = await client.request(q, { n: 100, f: filter });
      const ids = all.incidents.edges.map((e) => e.node.id);
      const back: string[] = [];
      let before: string | null = null;
      for (;;) {
        const page: { incidents: Connection } = await client.request(q, { l: 2, b: before, f: filter });
        back.unshift(...page.incidents.edges.map((e) => e.node.id));
        if (!page.incidents.pageInfo.hasPreviousPage) break;
        before = page.incidents.pageInfo.startCursor;
      }
      expect({ orderBy, ids: back }).toEqual({ orderBy, ids });
    }
  });
});
