import { Client } from 'pg';
import { PrismaService } from '@hindsight/db';
import { loadSyntheticCorpus } from '@hindsight/incidents';
import { AccountsService, ApiTokensService, TeamsService } from '@hindsight/tracking';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Every list and nested read costs the same number of SQL statements at 10 incidents as at
 * 1,000 (drafts: 3 and 100), and the hot paths cost exactly what incident-tree-query.ts says:
 * one statement for an incident with all its nested collections, one for a page of incidents or
 * actionables with theirs, and the count only when totalCount is selected.
 */

const ALL_NESTED = `slug title narrative summary started { at precision } patterns { key name }
  timeline { key at precision kind text }
  causalFactors { key role component leadsTo { kind to { key } } followsFrom { from { key } } }
  causalLinks { kind from { key } to { key } }
  actionables { key status owner dueDate priority references { kind ref url } addresses { key } incident { slug } }`;

const QUERIES: Record<string, { query: string; variables?: Record<string, unknown>; editor?: boolean; admin?: boolean; statements?: number }> = {
  'incident detail, all nested fields': { query: `query($slug: String!) { incident(slug: $slug) { ${ALL_NESTED} } }`, variables: { slug: 'synth-s1-0' }, statements: 1 },
  'incident list, all nested fields, no count': { query: `{ incidents(first: 100) { pageInfo { hasNextPage endCursor } nodes { ${ALL_NESTED} } } }`, statements: 1 },
  'incident list with totalCount': { query: `{ incidents(first: 100) { totalCount nodes { slug } } }`, statements: 2 },
  'incident list, filtered, ordered by title': {
    query: `{ incidents(first: 50, orderBy: TITLE_ASC, filter: { organization: "a", startedFrom: "2009-01-01T00:00:00Z" }) { totalCountEstimate nodes { slug patterns { key } } } }`,
  },
  'incident list with history': { query: `{ incidents(first: 100) { nodes { slug history(last: 5) { nodes { action field } } } } }` },
  'actionables board with filters': {
    query: `{ actionables(first: 100, filter: { status: [OPEN, IN_PROGRESS], hasExternalRef: true }) {
      totalCount nodes { key title status owner dueDate overdue priority references { ref url } addresses { key role } incident { slug title } } } }`,
    statements: 2,
  },
  'actionables board by owner and due date': {
    query: `query($owner: String) { actionables(first: 100, orderBy: DUE_DATE_ASC, filter: { owner: $owner, dueBefore: "2100-01-01" }) { nodes { key history(last: 3) { nodes { action } } incident { slug timeline { key } } } } }`,
  },
  'actionables board by priority': { query: `{ actionables(first: 100, orderBy: PRIORITY) { pageInfo { endCursor } nodes { key scenario { key latestRun { status } } } } }` },
  patterns: { query: `{ patterns(first: 100) { totalCount nodes { key name incidentCount } } }` },
  'drafts with nested fields': { query: `{ draftIncidents(first: 100) { nodes { report { __typename } incident { slug timeline { key } actionables { key references { ref } } patterns { key } } } } }`, editor: true },
  'incident list with related incidents': {
    query: `{ incidents(first: 20) { nodes { slug related(first: 3) { score reasons { kind detail weight } incident { slug title patterns { key } } } } } }`,
  },
  'text search with highlights, facets and didYouMean': {
    query: `{ incidents(first: 50, filter: { text: "cache retry" }) { totalCount searchWidened { word } edges { node { slug } highlights { field excerpt fragments { text matched } } }
      facets(first: 20) { kind distinctValues values { value label count } } didYouMean { text } } }`,
  },
  'text search that finds nothing, with didYouMean': {
    query: `{ incidents(first: 50, filter: { text: "cahe" }) { totalCount nodes { slug } facets { kind values { value } } didYouMean { text totalCount corrections { word replacement } } } }`,
  },
  filterSuggestions: { query: `{ a: filterSuggestions(field: COMPONENT, text: "e", first: 50) { value count } b: filterSuggestions(field: OWNER, text: "a", first: 50) { value count } }` },
  incidentDurationStats: {
    query: `{ a: incidentDurationStats(metric: TIME_TO_RESOLVE, groupBy: PATTERN, first: 100) { group count approximateCount p50 p90 max histogram }
      b: incidentDurationStats(metric: TIME_TO_DETECT) { group count p50 } }`,
  },
  'teams with members': { query: `{ teams(first: 100) { totalCount nodes { name version members(first: 100) { totalCount nodes { name addedAt } } } } }` },
  accounts: { query: `{ accounts(first: 100) { nodes { name role lastSignInAt disabledAt } } }`, admin: true },
  apiTokens: { query: `{ apiTokens(first: 100) { nodes { name role prefix lastUsedAt revokedAt } } }`, admin: true },
};

describe('statement counts of every list and nested read, at 10 and at 1,000 incidents', () => {
  let t: TestApp;
  let editor: Record<string, string>;
  let admin: Record<string, string>;
  beforeAll(async () => {
    // Counts, never speed: a loaded machine may take long, so statements get minutes.
    t = await startTestApp({ env: { DB_STATEMENT_TIMEOUT_MS: '300000' } });
    const tokens = await issueTokens(t);
    editor = tokens.as('editor');
    admin = tokens.as('admin');
  });
  afterAll(async () => {
    await t.close();
  });

  const prisma = () => t.app.get(PrismaService);

  /** Objects in the answer that name something (a key, slug, name, value, group or matched text): the rows it returned. */
  function rowsOf(data: unknown): number {
    if (Array.isArray(data)) return data.reduce((n: number, d) => n + rowsOf(d), 0);
    if (data && typeof data === 'object') {
      const own = ['key', 'slug', 'name', 'value', 'group', 'text'].some((k) => k in data) ? 1 : 0;
      return own + Object.values(data).reduce((n: number, v) => n + rowsOf(v), 0);
    }
    return 0;
  }

  /** The latest use recorded of any API token (the auth guard records a token's use at most once a minute). */
  const lastTokenUse = async () => (await prisma().$queryRaw<{ at: string | null }[]>`SELECT max("lastUsedAt")::text AS at FROM "ApiToken"`)[0]!.at;

  async function statementsOf(name: string): Promise<{ statements: number; rows: number }> {
    const q = QUERIES[name]!;
    for (let attempt = 1; ; attempt++) {
      const used = await lastTokenUse();
      const before = prisma().statementCount;
      const res = await t.gql<Record<string, unknown>>(q.query, q.variables, q.admin ? admin : q.editor ? editor : undefined);
      expect({ name, errors: res.errors }).toEqual({ name, errors: undefined });
      const statements = prisma().statementCount - before;
      // The token's minute can run out between the request that records its use (touchToken, below)
      // and this one, on a loaded machine: then this request also recorded it, one UPDATE that is
      // not the read's. Asked once more, the use was just recorded and is not written again.
      if (attempt === 1 && (await lastTokenUse()) !== used) continue;
      return { statements, rows: rowsOf(res.data) };
    }
  }

  /**
   * Up to `n` people, teams and API tokens: every team has its number's person and the one
   * before as members, and the people own follow-ups, so the lists and nested members grow
   * with the incidents.
   */
  async function people(n: number): Promise<void> {
    const actor = { name: 'test-setup', tokenId: null };
    const accounts = t.app.get(AccountsService);
    const teams = t.app.get(TeamsService);
    const tokens = t.app.get(ApiTokensService);
    const existing = new Set((await accounts.list()).map((a) => a.name));
    for (let i = 0; i < n; i++) {
      if (existing.has(`person-${i}`)) continue;
      await accounts.create(`person-${i}`, i % 2 === 0 ? 'editor' : 'viewer', actor, `a long password ${i}`);
      await teams.create(`team-${i}`, actor);
      await teams.addMember(`team-${i}`, `person-${i}`, actor);
      if (i > 0) await teams.addMember(`team-${i}`, `person-${i - 1}`, actor);
      await tokens.create(`token-${i}`, 'viewer', actor);
    }
  }

  /** Makes `n` of the synthetic incidents drafts again (the drafts list shows them). */
  async function drafts(n: number): Promise<void> {
    const c = new Client({ connectionString: t.db.url });
    await c.connect();
    try {
      await c.query(`UPDATE "Incident" SET "status" = 'draft' WHERE "slug" IN (
        SELECT "slug" FROM "Incident" WHERE "slug" LIKE 'synth-s1-%' ORDER BY split_part("slug", '-', 3)::int DESC LIMIT $1)`, [n]);
      await c.query(`INSERT INTO "ImportedDocument" ("incidentId", "contentHash", "format", "report", "importedBy")
        SELECT i."id", md5(i."slug"), 'markdown', '{"confidence": 0.5, "warnings": [], "unused": []}'::jsonb, 'test'
        FROM "Incident" i WHERE i."status" = 'draft' ON CONFLICT DO NOTHING`);
    } finally {
      await c.end();
    }
  }

  it('costs the same statements for 10 incidents as for 1,000, and what the hot paths promise', async () => {
    // 4 shipped incidents + 6 synthetic ones = 10; then up to 1,000.
    await loadSyntheticCorpus(prisma(), { incidents: 6, seed: 1, batchSize: 100 });
    // An owner with dated work among the first ten, asked for in upper case (the filter ignores case).
    const [{ owner }] = await prisma().$queryRaw<{ owner: string }[]>`SELECT upper("owner") AS owner FROM "Actionable"
      WHERE "owner" IS NOT NULL AND "dueDate" IS NOT NULL GROUP BY "owner" ORDER BY count(*) DESC, "owner" LIMIT 1`;
    QUERIES['actionables board by owner and due date']!.variables = { owner };
    await drafts(3);
    await people(3);
    // A token's last use is recorded at most once a minute, by the request that uses it: one
    // request with each token before every measured query, so that write never falls inside one
    // (a round on a loaded machine can last longer than a minute).
    const touchToken = async () => {
      for (const as of [editor, admin]) await t.gql('{ patterns(first: 1) { nodes { key } } }', {}, as);
    };
    const small: Record<string, { statements: number; rows: number }> = {};
    for (const name of Object.keys(QUERIES)) {
      await touchToken();
      small[name] = await statementsOf(name);
      // Every read returns rows already, so the comparison is between full and short pages, not empty ones.
      expect({ name, rows: small[name]!.rows }).toEqual({ name, rows: expect.any(Number) });
      expect(small[name]!.rows).toBeGreaterThan(0);
    }

    await loadSyntheticCorpus(prisma(), { incidents: 996, seed: 1, batchSize: 100 });
    await drafts(100);
    await people(60);
    for (const name of Object.keys(QUERIES)) {
      await touchToken();
      const big = await statementsOf(name);
      expect({ name, statements: big.statements }).toEqual({ name, statements: small[name]!.statements });
      const promised = QUERIES[name]!.statements;
      if (promised !== undefined) expect({ name, statements: big.statements }).toEqual({ name, statements: promised });
    }
    // The large corpus really was read: pages are full where they were short.
    const listed = await t.gql<{ incidents: { totalCount: number; nodes: unknown[] }; actionables: { nodes: unknown[] } }>(
      `{ incidents(first: 100) { totalCount nodes { slug } } actionables(first: 100) { nodes { key } } }`,
    );
    const [{ n }] = await prisma().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "Incident" WHERE "status" = 'published'`;
    expect(n).toBeGreaterThan(850);
    expect(listed.data.incidents.totalCount).toBe(n);
    expect(listed.data.incidents.nodes).toHaveLength(100);
    expect(listed.data.actionables.nodes).toHaveLength(100);
  }, 1_800_000);
});
