import { getIntrospectionQuery } from 'graphql';
import request from 'supertest';
import { PrismaService } from '@hindsight/db';
import { issueTokens } from './support/api-tokens';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const APACHE = 'apache-outbound-calls-without-timeouts-2011';

const aliases = (count: number, selection: string) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;

/** The measured floods: each one froze the service or exhausted the pool before it was bounded. */
const INTROSPECTION_FLOOD = aliases(4000, '__schema { types { fields { args { name } } } }');
const HEAVY_INCIDENT = `incident(slug: "${STACKEGG}") { title timeline { key text asWritten } causalFactors { key text leadsTo { kind to { key text } } followsFrom { from { key } } } actionables { key title status references { ref url } history { nodes { field } } } }`;
const HEAVY_PAGE = 'incidents(first: 100) { totalCount nodes { slug title narrative timeline { key text } causalFactors { key text } actionables { key title status } } }';
const FLOODS: [string, string][] = [
  ['4,000 aliases of __schema', INTROSPECTION_FLOOD],
  ['1,000 aliases of actionableStats', aliases(1000, 'actionableStats { total open overdue byOrganization { organization total } byPattern { patternKey total } }')],
  ['1,000 aliases of a heavy incident(slug)', aliases(1000, HEAVY_INCIDENT)],
  ['200 aliases of incidents(first: 100)', aliases(200, HEAVY_PAGE)],
];

type Errors = { message: string; extensions?: Record<string, unknown> }[] | undefined;

async function post(t: TestApp, query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>) {
  const res = await request(t.app.getHttpServer()).post('/graphql').set(headers).send({ query, variables });
  return { status: res.status, headers: res.headers, errors: (res.body as { errors?: Errors }).errors, data: (res.body as { data?: Record<string, unknown> }).data };
}

/** Runs `send` and returns what it answered with the number of SQL statements the app sent meanwhile. */
async function counting<T>(t: TestApp, send: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const prisma = t.app.get(PrismaService);
  const before = prisma.statementCount;
  const result = await send();
  return { result, statements: prisma.statementCount - before };
}

describe('operation limits: a request too large to run is refused before it runs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts tokens before parsing: the 4,000-alias flood is refused for its length', async () => {
    const res = await post(t, INTROSPECTION_FLOOD);
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', measure: 'tokens', limit: 5000 });
    // A malformed document is still a syntax error, with its position.
    expect((await post(t, '{ patterns { nodes { key } }')).errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it.each(FLOODS)('refuses %s with QUERY_TOO_COMPLEX, before any SQL statement', async (_name, query) => {
    const { result, statements } = await counting(t, () => post(t, query));
    expect(result.status).toBe(400);
    expect(result.data).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: expect.any(Number), measure: expect.any(String) });
    expect(result.errors?.[0]?.message).toMatch(/^The operation is too large to run: .*; the limit is \d+ \(GRAPHQL_MAX_[A-Z]+\)\./);
    expect(statements).toBe(0);
  });

  it('names the computed cost and the limit when a few aliases ask for too much', async () => {
    // Under the alias and token caps. Per alias: 100 incidents × 10 factors × 10 links × (the
    // linked factor's fields and its 10 links) = 1 + 100 × (1 + (1 + 10 × (1 + (1 + 10 × (1 + 14))))) = 152,201.
    const page = 'incidents(first: 100) { nodes { causalFactors { key leadsTo { kind to { key text leadsTo { kind } } } } } }';
    const { result, statements } = await counting(t, () => post(t, aliases(3, page)));
    expect(result.errors?.[0]?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', measure: 'cost', cost: 3 * 152_201, limit: 150_000 });
    expect(result.errors?.[0]?.message).toContain('its cost is 456603; the limit is 150000 (GRAPHQL_MAX_COST)');
    expect(statements).toBe(0);
  });

  it('costs a bounded count by the matches it may read, so aliases cannot repeat a large one', async () => {
    const facets = (n: number) => `incidents(first: 1) { facets(first: 1, countUpTo: ${n}) { kind } }`;
    // One count of 100,000 matches fits under the limit of 150,000; two do not.
    expect((await post(t, `{ ${facets(100_000)} }`)).errors).toBeUndefined();
    const { result, statements } = await counting(t, () => post(t, aliases(2, facets(100_000))));
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', measure: 'cost' });
    expect(result.errors?.[0]?.extensions?.cost).toBeGreaterThan(200_000);
    expect(statements).toBe(0);
    // Omitted, countUpTo costs the list count limit (1,000 by default): fifteen aliases fit.
    expect((await post(t, aliases(15, 'incidents(first: 1) { facets(first: 1) { kind } }'))).errors).toBeUndefined();
  });

  it('counts list sizes: a smaller page of the same selection is admitted', async () => {
    const small = await post(t, aliases(10, HEAVY_PAGE.replace('first: 100', 'first: 5')));
    expect(small.errors).toBeUndefined();
    expect((small.data?.a0 as { nodes: unknown[] }).nodes).toHaveLength(4);
    const viaVariable = await post(t, `query Page($n: Int) { incidents(first: $n) { nodes { timeline { key } } } a: incidents(first: $n) { nodes { timeline { key } } } }`, {}, { n: 100 });
    expect(viaVariable.errors).toBeUndefined();
  });

  it('judges each request of a repeated document by its own variables (the analysis is remembered per document and variables)', async () => {
    // 3 × 152,201 with n = 100 (see the test above), about a fiftieth of that with n = 2.
    const page = 'incidents(first: $n) { nodes { causalFactors { key leadsTo { kind to { key text leadsTo { kind } } } } } }';
    const query = `query Heavy($n: Int) ${aliases(3, page)}`;
    for (let round = 0; round < 2; round++) {
      expect((await post(t, query, {}, { n: 2 })).errors).toBeUndefined();
      expect((await post(t, query, {}, { n: 100 })).errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', measure: 'cost' });
      expect((await post(t, query, {}, { n: 2 })).errors).toBeUndefined();
    }
  });

  it('caps aliases, and names the count and the limit', async () => {
    const res = await post(t, aliases(16, 'patterns { nodes { key } }'));
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', measure: 'aliases', aliases: 16, limit: 15 });
    expect(res.errors?.[0]?.message).toContain('it has 16 aliases; the limit is 15 (GRAPHQL_MAX_ALIASES)');
    expect((await post(t, aliases(15, 'patterns { nodes { key } }'))).errors).toBeUndefined();
  });

  it('caps directives', async () => {
    // The same field asked for again merges into one, but each copy's directive is counted.
    const res = await post(t, `{ patterns { nodes { ${Array.from({ length: 51 }, () => 'key @include(if: true)').join(' ')} } } }`);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', measure: 'directives', directives: 51, limit: 50 });
  });

  it('caps nesting of data fields, fragments included', async () => {
    let selection = 'key';
    for (let i = 0; i < 6; i++) selection = `leadsTo { to { ${selection} } }`;
    const res = await post(t, `{ incidents { nodes { ...F } } } fragment F on Incident { causalFactors { ${selection} } }`);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', measure: 'depth', depth: 16, limit: 12 });
  });

  it('bounds fragments spread into fragments, which multiply what a short document names', async () => {
    const levels = Array.from({ length: 16 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} a${i}: patterns { nodes { key } } ...F${i + 1} }`);
    levels.push('fragment F16 on Query { patterns { nodes { key } } }');
    const res = await post(t, `{ ...F0 } ${levels.join(' ')}`);
    expect(res.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('admits what the explorer and the documentation send: full introspection and the README queries', async () => {
    const introspection = await post(t, getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, schemaDescription: true }));
    expect(introspection.errors).toBeUndefined();
    expect((introspection.data?.__schema as { types: unknown[] }).types.length).toBeGreaterThan(50);
    const readme = await post(t, '{ incidents(filter: { text: "keep-alive" }) { totalCount nodes { slug started { at precision } actionables { key status } } } }');
    expect(readme.errors).toBeUndefined();
    expect(readme.data?.incidents).toMatchObject({ totalCount: 1 });
  });

  it('keeps answering normal queries after a flood', async () => {
    await Promise.all(FLOODS.map(([, query]) => post(t, query)));
    const res = await post(t, '{ patterns { nodes { key } } }');
    expect(res.errors).toBeUndefined();
  });

  it('refuses a flood sent with a revoked token as UNAUTHENTICATED, not by running it', async () => {
    const { tokens, as } = await issueTokens(t);
    await post(t, 'mutation { revokeApiToken(input: { token: "viewer-token" }) { apiToken { id } } }', as('admin'));
    const res = await post(t, INTROSPECTION_FLOOD, { Authorization: `Bearer ${tokens.viewer}` });
    expect(res.status).toBe(401);
    expect(res.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    // The same for an introspection-only operation, which reaches no resolver and so no guard.
    const small = await post(t, '{ __schema { queryType { name } } }', { Authorization: `Bearer ${tokens.viewer}` });
    expect(small.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('operation limits come from the environment', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ seed: false, env: { GRAPHQL_MAX_COST: '50', GRAPHQL_MAX_ALIASES: '2', GRAPHQL_MAX_DEPTH: '3' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('applies the configured cost, alias and depth limits', async () => {
    expect((await post(t, '{ patterns(first: 5) { nodes { key } } }')).errors).toBeUndefined();
    expect((await post(t, '{ incidents(first: 100) { nodes { slug } } }')).errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', measure: 'cost', cost: 201, limit: 50 });
    expect((await post(t, aliases(3, 'patterns { nodes { key } }'))).errors?.[0]?.extensions).toMatchObject({ measure: 'aliases', limit: 2 });
    expect((await post(t, '{ incidents(first: 1) { nodes { timeline { key } } } }')).errors?.[0]?.extensions).toMatchObject({ measure: 'depth', limit: 3 });
  });
});

describe('PUBLIC_READ=false applies to introspection too', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ seed: false, env: { PUBLIC_READ: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses anonymous introspection, even the 4,000-alias flood, as UNAUTHENTICATED before parsing it', async () => {
    const { result, statements } = await counting(t, () => post(t, INTROSPECTION_FLOOD));
    expect(result.status).toBe(401);
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(statements).toBe(0);
    expect((await post(t, '{ __schema { queryType { name } } }')).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await post(t, '{ __typename }')).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('answers introspection for a valid token, and still bounds its size', async () => {
    const { as } = await issueTokens(t);
    const res = await post(t, '{ __schema { queryType { name } } }', as('viewer'));
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    expect((await post(t, INTROSPECTION_FLOOD, as('viewer'))).errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });
});

describe('the production switch turns introspection and the explorer off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ seed: false, env: { NODE_ENV: 'production' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses introspection and serves no explorer, while queries work', async () => {
    const server = t.app.getHttpServer();
    const introspection = await post(t, '{ __schema { queryType { name } } }');
    expect(introspection.errors?.[0]?.message).toMatch(/introspection is not allowed/);
    expect(introspection.data).toBeUndefined();
    const page = await request(server).get('/graphql').set('Accept', 'text/html');
    expect(page.text).not.toContain('GraphiQL');
    expect((await request(server).get('/explorer/assets/graphiql.js')).status).toBe(404);
    expect((await post(t, '{ patterns { nodes { key } } }')).errors).toBeUndefined();
  });

  it('turns both back on with GRAPHQL_INTROSPECTION=true, even in production', async () => {
    const dev = await startTestApp({ seed: false, env: { NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' } });
    try {
      const page = await request(dev.app.getHttpServer()).get('/graphql').set('Accept', 'text/html');
      expect(page.status).toBe(200);
      expect(page.text).toContain('GraphiQL');
      expect((await dev.gql('{ __schema { queryType { name } } }')).errors).toBeUndefined();
    } finally {
      await dev.close();
    }
  });
});

describe('rate limits on writes and model runs', () => {
  let t: TestApp;
  let as: Awaited<ReturnType<typeof issueTokens>>['as'];
  beforeAll(async () => {
    t = await startTestApp({
      env: {
        RATE_LIMIT_WRITES_PER_TOKEN: '2',
        RATE_LIMIT_WRITES_PER_ADDRESS: '5',
        RATE_LIMIT_MODEL_RUNS_PER_TOKEN: '0',
        RATE_LIMIT_MODEL_RUNS_PER_ADDRESS: '2',
        RATE_LIMIT_WINDOW_SECONDS: '3600',
      },
    });
    ({ as } = await issueTokens(t));
    await attachSeedModels(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  const REVOKE_NOTHING = 'mutation { revokeApiToken(input: { token: "no-such-token" }) { apiToken { id } } }';

  it('refuses the write beyond a token’s budget at once with TOO_MANY_REQUESTS and a retry-after, per token and per address', async () => {
    for (let i = 0; i < 2; i++) expect((await post(t, REVOKE_NOTHING, as('admin'))).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const { result, statements } = await counting(t, () => post(t, REVOKE_NOTHING, as('admin')));
    expect(result.status).toBe(429);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'TOO_MANY_REQUESTS', per: 'token', limit: 2, retryAfterSeconds: expect.any(Number) });
    const retryAfter = result.errors?.[0]?.extensions?.retryAfterSeconds as number;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(result.headers['retry-after']).toBe(String(retryAfter));
    // Only the token lookup ran: the write never reached a resolver.
    expect(statements).toBeLessThanOrEqual(1);

    // Another token has its own budget, until the address's (5) is spent: 2 (admin) + 2 + 1.
    for (let i = 0; i < 2; i++) expect((await post(t, 'mutation { deleteActionable(input: { id: "00000000-0000-0000-0000-000000000000", expectedVersion: 1 }) { deletedActionableId } }', as('editor'))).errors?.[0]?.extensions?.code).not.toBe('TOO_MANY_REQUESTS');
    expect((await post(t, REVOKE_NOTHING, as('viewer'))).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const byAddress = await post(t, REVOKE_NOTHING, as('viewer'));
    expect(byAddress.errors?.[0]?.extensions).toMatchObject({ code: 'TOO_MANY_REQUESTS', per: 'address', limit: 5 });
    // Reads are not counted.
    expect((await post(t, '{ patterns { nodes { key } } }', as('viewer'))).errors).toBeUndefined();
  });

  it('counts model runs per address, each aliased run on its own, and page what-ifs with them', async () => {
    const run = `mutation { runModel(input: { incident: "${APACHE}", scenario: "as-happened" }) { run { status } } }`;
    const first = await post(t, run);
    expect(first.errors).toBeUndefined();
    expect(first.data).toEqual({ runModel: { run: { status: 'SUCCEEDED' } } });
    // One left in the budget; two aliased runs ask for two, and a refused request spends what it asked for.
    const two = await post(t, `mutation { a: runModel(input: { incident: "${APACHE}" }) { run { status } } b: runModel(input: { incident: "${APACHE}" }) { run { status } } }`);
    expect(two.errors?.[0]?.extensions).toMatchObject({ code: 'TOO_MANY_REQUESTS', per: 'address', limit: 2 });
    expect(two.data).toBeUndefined();
    const compare = await post(t, `{ compareScenarios(incident: "${APACHE}") { scenarios { scenario { key } } } }`);
    expect(compare.status).toBe(429);
    expect(compare.errors?.[0]?.extensions?.code).toBe('TOO_MANY_REQUESTS');

    const server = t.app.getHttpServer();
    const whatIf = await request(server).get(`/incidents/${APACHE}?p.maxClients=300`);
    expect(whatIf.status).toBe(429);
    expect(Number(whatIf.headers['retry-after'])).toBeGreaterThan(0);
    expect((await request(server).get(`/incidents/${APACHE}/model?p.maxClients=300`)).status).toBe(429);
    // The page itself, with the stored default runs, stays open.
    expect((await request(server).get(`/incidents/${APACHE}`)).status).toBe(200);
  });
});

describe('a client refused again and again is blocked before its requests are read', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      seed: false,
      env: { RATE_LIMIT_REFUSALS_PER_CLIENT: '3', RATE_LIMIT_WINDOW_SECONDS: '3600', RATE_LIMIT_PENALTY_SECONDS: '600' },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers the request after the third refusal 429 with Retry-After without parsing it, and serves other clients', async () => {
    const { tokens } = await issueTokens(t);
    const flooder = { Authorization: `Bearer ${tokens.viewer}` };
    for (let i = 0; i < 3; i++) {
      const res = await post(t, INTROSPECTION_FLOOD, flooder);
      expect(res.status).toBe(400);
      expect(res.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    }
    // Not JSON at all: a parsed body would be a 400, so the 429 shows it was never read.
    const blocked = await request(t.app.getHttpServer()).post('/graphql').set(flooder).set('Content-Type', 'application/json').send('{ not json');
    expect(blocked.status).toBe(429);
    expect(blocked.headers['connection']).toBe('close');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(590);
    expect(blocked.body).toMatchObject({ code: 'TOO_MANY_REQUESTS', retryAfterSeconds: expect.any(Number) });
    // A small, valid query from the same token is blocked too.
    expect((await post(t, '{ __typename }', flooder)).status).toBe(429);
    // The penalty is per client: another token from the same address is served, and so is the
    // address itself without a token.
    const others: Record<string, string>[] = [{ Authorization: `Bearer ${tokens.admin}` }, {}];
    for (const headers of others) {
      const other = await post(t, '{ __typename }', headers);
      expect(other.status).toBe(200);
      expect(other.data).toEqual({ __typename: 'Query' });
    }
  });

  it('counts refusals per address for requests without a token', async () => {
    for (let i = 0; i < 3; i++) expect((await post(t, INTROSPECTION_FLOOD)).status).toBe(400);
    expect((await post(t, '{ __typename }')).status).toBe(429);
  });
});
