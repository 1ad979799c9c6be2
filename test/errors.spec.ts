import { Writable } from 'node:stream';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { projectRoot } from '@hindsight/db';
import { ERROR_CODES } from '@hindsight/domain';
import { HTTP_STATUS } from '../apps/api/src/common/errors/app-error.mapping';
import { loadConfig } from '../apps/api/src/config/app-config';
import { issueTokens } from './support/api-tokens';
import { tableHashes } from './support/table-hash';
import { startTestApp, type TestApp } from './support/test-app';
import { createPinoLogger } from '../apps/api/src/logging/app-logger';

type Auth = (role: 'viewer' | 'editor' | 'admin') => Record<string, string>;

/** Every line the app's logger writes, kept for `logsDuring`. */
const written: string[] = [];
const appLog = createPinoLogger({
  level: 'info',
  format: 'json',
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(...chunk.toString('utf8').split('\n').filter((l) => l.trim() !== ''));
      done();
    },
  }),
});

/** Lines the app logs while `work` runs. */
async function logsDuring(work: () => Promise<void>): Promise<string[]> {
  const from = written.length;
  await work();
  return written.slice(from);
}

/** Breaks the app's database under it (a real fault, not a mock): the Pattern table disappears. */
async function hidePatternTable(url: string, hidden: boolean): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(hidden ? 'ALTER TABLE "Pattern" RENAME TO "PatternHidden"' : 'ALTER TABLE "PatternHidden" RENAME TO "Pattern"');
  } finally {
    await client.end();
  }
}

describe('errors never leak internals', () => {
  let t: TestApp;
  let as: Auth;
  beforeAll(async () => {
    t = await startTestApp({ log: appLog });
    as = (await issueTokens(t)).as;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a server fault with INTERNAL_SERVER_ERROR, a generic message and no stack, and logs it once on one line', async () => {
    await hidePatternTable(t.db.url, true);
    let res: { status: number; text: string } = { status: 0, text: '' };
    let lines: string[];
    try {
      lines = await logsDuring(async () => {
        res = await request(t.app.getHttpServer()).post('/graphql').send({ query: '{ patterns { nodes { key } } }' });
      });
    } finally {
      await hidePatternTable(t.db.url, false);
    }
    const body = JSON.parse(res.text) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]!.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
    expect(body.errors[0]!.message).toBe('Internal error; the server log has the details.');
    expect(res.text).not.toMatch(/stacktrace|node_modules|\.ts:\d|\/[a-z]+\/[a-z]+\//i);
    const logged = lines.filter((l) => l.includes('PatternHidden') || l.includes('"Pattern"') || l.includes('42P01') || l.includes('does not exist'));
    expect(logged).toHaveLength(1);
    expect(logged[0]!.length).toBeLessThan(2_000);
  });

  it('puts a stack in error responses only with the development switch', async () => {
    const dev = await startTestApp({ seed: false, env: { HINDSIGHT_DEV_ERRORS: 'true' } });
    try {
      await hidePatternTable(dev.db.url, true);
      const res = await dev.gql('{ patterns { nodes { key } } }');
      expect(res.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      expect(Array.isArray(res.errors?.[0]?.extensions?.stacktrace)).toBe(true);
    } finally {
      await dev.close();
    }
    expect(() => loadConfig({ HINDSIGHT_DEV_ERRORS: 'sometimes' })).toThrow(/HINDSIGHT_DEV_ERRORS: expected true or false/);
    expect(loadConfig({}).devErrors).toBe(false);
  });

  it('maps errors of field resolvers like any other: history(last: 101) is BAD_USER_INPUT naming `last`', async () => {
    const res = await t.gql('{ incidents(first: 1) { nodes { history(last: 101) { nodes { action } } } } }');
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'last' });
    expect(res.errors?.[0]?.extensions?.stacktrace).toBeUndefined();
  });

  it.each([
    ['incident(slug)', 'query($v: String!) { incident(slug: $v) { slug } }', 'v', 'slug'],
    ['search text', 'query($v: String) { incidents(filter: { text: $v }) { totalCount } }', 'v', 'filter.text'],
    ['revokeApiToken', 'mutation($v: ID!) { revokeApiToken(input: { token: $v }) { apiToken { id } } }', 'v', 'input.token'],
  ])('refuses a NUL byte in %s as BAD_USER_INPUT naming the field, without logging a fault', async (_name, query, variable, field) => {
    let res: { errors?: { extensions?: Record<string, unknown> }[] } = {};
    const lines = await logsDuring(async () => {
      res = await t.gql(query, { [variable]: 'x\u0000y' }, field === 'input.token' ? as('admin') : {});
    });
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(String((res.errors?.[0] as { message?: string }).message)).toMatch(/NUL/);
    expect(lines.filter((l) => /"level":50|22021/.test(l))).toEqual([]);
  });

  it('refuses a lone surrogate in an update as in a create, and writes nothing', async () => {
    const slug = 'stackegg-haproxy-session-cap-2015';
    const before = await tableHashes(t.db.url);
    const { version } = (await t.gql<{ incident: { version: number } }>(`{ incident(slug: "${slug}") { version } }`)).data.incident;
    const update = await t.gql('mutation($v: Int!, $t: String!) { updateIncident(input: { slug: "' + slug + '", expectedVersion: $v, patch: { title: $t } }) { incident { title } } }', { v: version, t: 'Session cap \ud83d' }, as('editor'));
    expect(update.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.patch.title' });
    const trailing = await t.gql('mutation($v: Int!, $p: IncidentPatchInput!) { updateIncident(input: { slug: "' + slug + '", expectedVersion: $v, patch: $p }) { incident { title } } }', { v: version, p: { summary: '\udc00 alone' } }, as('editor'));
    expect(trailing.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.patch.summary' });
    const create = await t.gql('mutation($i: CreateActionableInput!) { createActionable(input: $i) { actionable { key } } }', { i: { incident: slug, key: 'surrogate-check', title: 'Check \ud800' } }, as('editor'));
    expect(create.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.title' });
    expect(await tableHashes(t.db.url)).toEqual(before);
  });

  it('refuses a DateTime that is not a real instant, as a literal or a variable, naming the field', async () => {
    const literal = await t.gql('{ incidents(filter: { startedFrom: "yesterday" }) { totalCount } }');
    expect(literal.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.startedFrom' });
    const variable = await t.gql('query($f: IncidentFilterInput) { incidents(filter: $f) { totalCount } }', { f: { startedBefore: '2026-02-30T10:00:00Z' } });
    expect(variable.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.startedBefore' });
    const fine = await t.gql<{ incidents: { totalCount: number } }>('{ incidents(filter: { startedFrom: "2015-01-01T00:00:00Z" }) { totalCount } }');
    expect(fine.data.incidents.totalCount).toBeGreaterThan(0);
  });

  it('refuses a timeline time on 30 February instead of storing 2 March', async () => {
    const slug = 'stackegg-haproxy-session-cap-2015';
    const before = await tableHashes(t.db.url);
    const { version } = (await t.gql<{ incident: { version: number } }>(`{ incident(slug: "${slug}") { version } }`)).data.incident;
    const res = await t.gql(
      `mutation($e: TimelineEventInput!) { upsertTimelineEvent(input: { slug: "${slug}", expectedVersion: ${version}, event: $e }) { incident { version } } }`,
      { e: { key: 'impossible-day', at: '2026-02-30T10:00:00Z', precision: 'MINUTE', kind: 'OBSERVATION', text: 'Never happened.' } },
      as('editor'),
    );
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.event.at' });
    expect(await tableHashes(t.db.url)).toEqual(before);
  });

  it('refuses draftIncidents(first) beyond the page cap instead of quietly clamping it', async () => {
    const res = await t.gql('{ draftIncidents(first: 1000000) { nodes { incident { slug } } } }', {}, as('editor'));
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
  });

  it('cuts a 1 MB value that an error would echo', async () => {
    const slug = 'x'.repeat(1024 * 1024);
    const res = await request(t.app.getHttpServer()).post('/graphql').send({ query: 'query($s: String!) { incident(slug: $s) { slug } }', variables: { s: slug } });
    expect(JSON.parse(res.text).errors[0].extensions.code).toBe('NOT_FOUND');
    expect(res.text.length).toBeLessThan(4_000);
  });

  it('answers a body over the size limit with 413 and a JSON error, not a crash', async () => {
    const res = await request(t.app.getHttpServer())
      .post('/graphql')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ query: 'query($s: String!) { incident(slug: $s) { slug } }', variables: { s: 'x'.repeat(20 * 1024 * 1024) } }));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'BAD_USER_INPUT', field: 'body' });
    expect((await t.gql<{ patterns: { nodes: unknown[] } }>('{ patterns { nodes { key } } }')).data.patterns.nodes.length).toBeGreaterThan(0);
  });
});

describe('the README lists every error code a client can receive', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ seed: false });
  });
  afterAll(async () => {
    await t.close();
  });

  it('documents each code of the domain and each one Apollo answers malformed requests with', async () => {
    const readme = fs.readFileSync(path.join(projectRoot(), 'README.md'), 'utf8');
    const documented = new Set([...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]));
    const post = (body: unknown) => request(t.app.getHttpServer()).post('/graphql').set('content-type', 'application/json').send(JSON.stringify(body));
    const received = await Promise.all([
      post({}),
      post({ query: '{ incidents' }),
      post({ query: '{ nope }' }),
      post({ query: 'query A { patterns { nodes { key } } }', operationName: 'B' }),
      post({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }),
    ]);
    const codes = received.map((r) => (r.body as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code);
    expect(codes).toEqual(['BAD_REQUEST', 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'OPERATION_RESOLUTION_FAILURE', 'PERSISTED_QUERY_NOT_FOUND']);
    expect([...ERROR_CODES, ...codes].filter((c) => !documented.has(c!))).toEqual([]);
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_CODES].sort());
  });
});

describe('database faults reach clients as documented codes', () => {
  it('answers a statement timeout inside a field resolver with SERVICE_UNAVAILABLE, not the raw driver text', async () => {
    const t = await startTestApp({ env: { DB_STATEMENT_TIMEOUT_MS: '300' } });
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      // A writer holding the audit trail: the app's query waits on the lock until its statement timeout.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE "AuditEvent" IN ACCESS EXCLUSIVE MODE');
      const res = await t.gql('{ incident(slug: "stackegg-haproxy-session-cap-2015") { slug history { nodes { action } } } }');
      expect(res.errors?.[0]).toMatchObject({
        path: ['incident', 'history'],
        extensions: { code: 'SERVICE_UNAVAILABLE', reason: 'DATABASE_TIMEOUT', retryAfterSeconds: 1 },
      });
      expect(JSON.stringify(res)).not.toMatch(/canceling statement|Query read timeout|57014/);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      await t.close();
    }
  });

  it('reports only the status on /health while the database is down', async () => {
    const t = await startTestApp({ seed: false });
    try {
      expect((await request(t.app.getHttpServer()).get('/health')).status).toBe(200);
      const admin = new Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE "${t.db.name}" WITH (FORCE)`);
      await admin.end();
      const res = await request(t.app.getHttpServer()).get('/health');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', database: { status: 'down' } });
    } finally {
      await t.close();
    }
  });
});
