import { GraphQLClient } from 'graphql-request';
import { ApiTokensService } from '@hindsight/tracking';
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

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    const url = `${await t.app.getUrl()}/graphql`;
    client = new GraphQLClient(url);
    admin = new GraphQLClient(url, { headers: (await issueTokens(t)).as('admin') });
    // More tokens than one page, so paging apiTokens crosses pages both ways.
    const prisma = testPrisma(t.db.url);
    const tokens = new ApiTokensService(prisma);
    for (let i = 0; i < 4; i++) await tokens.create(`paging-${i}`, 'viewer', { name: 'test-setup', tokenId: null });
    await prisma.onModuleDestroy();
  });
  afterAll(() => t.close());

  const SELECTION = 'totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } }';

  async function forward(c: GraphQLClient, field: string, size: number): Promise<{ ids: string[]; total: number; pages: number }> {
    const ids: string[] = [];
    let after: string | null = null;
    let total = -1;
    let pages = 0;
    for (;;) {
      const data: Record<string, Connection> = await c.request(`query($n: Int, $a: String) { ${field}(first: $n, after: $a) { ${SELECTION} } }`, { n: size, a: after });
      const page: Connection = data[field]!;
      pages++;
      total = page.totalCount;
      ids.push(...page.edges.map((e) => e.node.id));
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    return { ids, total, pages };
  }

  async function backward(c: GraphQLClient, field: string, size: number): Promise<string[]> {
    const ids: string[] = [];
    let before: string | null = null;
    for (;;) {
      const data: Record<string, Connection> = await c.request(`query($n: Int, $b: String) { ${field}(last: $n, before: $b) { ${SELECTION} } }`, { n: size, b: before });
      const page: Connection = data[field]!;
      ids.unshift(...page.edges.map((e) => e.node.id));
      expect(page.pageInfo.hasNextPage).toBe(before !== null);
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    return ids;
  }

  it.each([
    ['incidents', false, 'public'],
    ['actionables', false, 'public'],
    ['patterns', true, 'public'],
    ['apiTokens', true, 'admin'],
  ] as const)('pages %s one by one to the end%s', async (field, backwards, who) => {
    const c = who === 'admin' ? admin : client;
    const all = await forward(c, field, 100);
    expect(all.pages).toBe(1);
    expect(all.ids.length).toBe(all.total);
    expect(all.total).toBeGreaterThan(2);
    const paged = await forward(c, field, 2);
    expect(paged.ids).toEqual(all.ids);
    expect(paged.pages).toBe(Math.ceil(all.total / 2));
    if (backwards) expect(await backward(c, field, 2)).toEqual(all.ids);
  });

  it('refuses a cursor of another ordering with BAD_USER_INPUT naming the argument', async () => {
    const data: { incidents: Connection } = await client.request(`{ incidents(first: 1, orderBy: TITLE_ASC) { ${SELECTION} } }`);
    const cursor = data.incidents.pageInfo.endCursor;
    await expect(client.request(`query($a: String) { incidents(first: 1, after: $a, orderBy: STARTED_AT_DESC) { totalCount } }`, { a: cursor })).rejects.toMatchObject({
      response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'after' }) })] },
    });
    const patterns: { patterns: Connection } = await client.request(`{ patterns(first: 1) { ${SELECTION} } }`);
    await expect(admin.request(`query($a: String) { apiTokens(first: 1, after: $a) { totalCount } }`, { a: patterns.patterns.pageInfo.endCursor })).rejects.toMatchObject({
      response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'after' }) })] },
    });
  });

  it('refuses a page larger than 100', async () => {
    await expect(client.request(`{ patterns(last: 101) { totalCount } }`)).rejects.toMatchObject({
      response: { errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'last' }) })] },
    });
  });
});
