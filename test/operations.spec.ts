import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import { migrate, migrationsDir, PrismaService } from '@hindsight/db';
import { ApiTokensService } from '@hindsight/tracking';
import { createApp } from '../apps/api/src/bootstrap';
import { loadConfig } from '../apps/api/src/config/app-config';
import { createPinoLogger, requestContext } from '../apps/api/src/logging/app-logger';
import { issueTokens } from './support/api-tokens';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';
import { createTestDatabase } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';

/** Every line the app's logger writes, as text. */
function captureLog() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    log: createPinoLogger({ level: 'info', format: 'json', destination: stream }),
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Prometheus text → { 'name{labels}': value }. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('logs: JSON lines with a request id, and no secrets', () => {
  const capture = captureLog();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ log: capture.log });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('returns the caller\'s x-request-id, or a fresh one, and names it on the request\'s log line', async () => {
    // Each request runs in a request context, which carries its id into every line it logs.
    const run = jest.spyOn(requestContext, 'run');
    const given = await request(t.app.getHttpServer()).get('/patterns').set('x-request-id', 'trace-42.a');
    expect(run).toHaveBeenCalledWith({ reqId: 'trace-42.a' }, expect.any(Function));
    run.mockRestore();
    expect(given.headers['x-request-id']).toBe('trace-42.a');
    const fresh = await request(t.app.getHttpServer()).get('/patterns');
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await request(t.app.getHttpServer()).get('/patterns').set('x-request-id', 'a b\u00e9<script>');
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

    const lines = capture.lines();
    const line = lines.find((l) => l.reqId === 'trace-42.a' && (l.res as { statusCode?: number } | undefined)?.statusCode === 200);
    expect(line).toMatchObject({ level: 30, msg: 'GET /patterns 200', req: { method: 'GET', path: '/patterns' } });
    expect(typeof line!.durationMs).toBe('number');
    expect(lines.some((l) => l.reqId === fresh.headers['x-request-id'])).toBe(true);
    // One reqId per line, not one from the request log and another from the context.
    for (const raw of capture.text().split('\n').filter(Boolean)) expect(raw.split('"reqId"').length).toBeLessThanOrEqual(2);
  });

  it('never writes a bearer token, a cookie, a created token or a database password', async () => {
    const { tokens, as } = await issueTokens(t);
    const server = t.app.getHttpServer();
    // A valid token on a read, and as the argument of an admin mutation.
    await request(server).post('/graphql').set(as('viewer')).set('Cookie', 'session=cookie-secret-value').send({ query: '{ patterns { nodes { key } } }' }).expect(200);
    const revoke = await t.gql('mutation R($t: ID!) { revokeApiToken(input: { token: $t }) { apiToken { name } } }', { t: tokens.viewer }, as('admin'));
    expect(revoke.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // A token the app does not know, and one that is malformed.
    const unknown = `hs_${'A'.repeat(43)}`;
    await request(server).post('/graphql').set('Authorization', `Bearer ${unknown}`).send({ query: '{ patterns { nodes { key } } }' });
    await request(server).get('/actionables').set('Authorization', 'Bearer not-a-token-secret-xyz');
    // A token created inside the app process, and a connection URL quoted in a message.
    const created = await t.app.get(ApiTokensService).create('logged-token', 'editor', { name: 'test', tokenId: null });
    new Logger('Probe').error(`could not reach postgresql://hindsight:db-password-123@db:5432/hindsight with ${created.token}`);

    const text = capture.text();
    for (const secret of [tokens.viewer, tokens.admin, unknown, 'not-a-token-secret-xyz', 'cookie-secret-value', created.token, 'db-password-123']) {
      expect(text).not.toContain(secret);
    }
    // The lines are still there, only without the secrets.
    expect(text).toContain('postgresql://hindsight:[redacted]@db:5432/hindsight');
    expect(capture.lines().filter((l) => (l.req as { path?: string } | undefined)?.path === '/graphql').length).toBeGreaterThanOrEqual(3);
  });

  it('writes JSON without colour codes when not at a terminal', () => {
    expect(capture.text()).not.toContain('\u001b[');
    expect(loadConfig({}, process.cwd(), false).log.format).toBe('json');
    expect(loadConfig({}, process.cwd(), true).log.format).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }, process.cwd(), true).log.format).toBe('json');
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});

describe('logs: LOG_LEVEL=silent', () => {
  const written: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        written.push(chunk.toString('utf8'));
        done();
      },
    });
    t = await startTestApp({ log: createPinoLogger({ level: 'silent', format: 'json', destination }) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('writes nothing, and still returns the caller\'s x-request-id or a fresh one, with no request context', async () => {
    const server = t.app.getHttpServer();
    // No line will be written, so no request enters a context (whose promise hooks cost every promise).
    const run = jest.spyOn(requestContext, 'run');
    const given = await request(server).post('/graphql').set('x-request-id', 'trace-7').send({ query: '{ patterns { nodes { key } } }' }).expect(200);
    expect(given.headers['x-request-id']).toBe('trace-7');
    const fresh = await request(server).get('/patterns').set('x-request-id', 'a b').expect(200);
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(run).not.toHaveBeenCalled();
    run.mockRestore();
    new Logger('Probe').error('not written');
    expect(written).toEqual([]);
  });
});

describe('/metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await attachSeedModels(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('times GraphQL by operation, pages by route pattern, counts errors by code, and shows the pool and the model runner', async () => {
    const server = t.app.getHttpServer();
    await t.gql('query PatternList { patterns { nodes { key } } }');
    await t.gql('query PatternList { patterns { nodes { key } } }');
    await t.gql('{ patterns { nodes { key } } }');
    await t.gql('query Missing { incident(slug: "no-such-incident") { title } }');
    await t.gql('query Broken { patterns { noSuchField } }');
    const runs = async () => parseMetrics((await request(server).get('/metrics')).text).get('hindsight_model_run_duration_seconds_count{status="succeeded"}') ?? 0;
    const runsBefore = await runs();
    const run = await t.gql<{ runModel: { run: { status: string } } }>('mutation Run { runModel(input: { incident: "' + STACKEGG + '", scenario: "as-happened", seed: 424242 }) { run { status } } }');
    expect(run.data.runModel.run.status).toBe('SUCCEEDED');
    expect(await runs()).toBe(runsBefore + 1);
    await request(server).get(`/incidents/${STACKEGG}`).expect(200);
    await request(server).get('/incidents/no-such-incident').expect(404);

    const res = await request(server).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parseMetrics(res.text);
    expect(m.get('hindsight_graphql_request_duration_seconds_count{operation="PatternList"}')).toBe(2);
    expect(m.get('hindsight_graphql_request_duration_seconds_count{operation="anonymous"}')).toBe(1);
    expect(m.get('hindsight_graphql_request_duration_seconds_count{operation="Run"}')).toBe(1);
    expect(m.get('hindsight_graphql_errors_total{code="NOT_FOUND"}')).toBe(1);
    expect(m.get('hindsight_graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED"}')).toBe(1);
    expect(m.get('hindsight_http_request_duration_seconds_count{method="GET",route="/incidents/:slug",status="2xx"}')).toBe(1);
    expect(m.get('hindsight_http_request_duration_seconds_count{method="GET",route="/incidents/:slug",status="4xx"}')).toBe(1);
    // The raw URL never becomes a label.
    expect(res.text).not.toContain(STACKEGG);
    expect(res.text).not.toContain('no-such-incident');
    for (const state of ['in_use', 'idle', 'waiting']) expect(m.has(`hindsight_db_pool_connections{state="${state}"}`)).toBe(true);
    expect(m.get('hindsight_db_pool_connections{state="idle"}')).toBeGreaterThan(0);
    expect(m.get('hindsight_model_runner_runs{state="queued"}')).toBe(0);
    expect(m.get('hindsight_model_run_duration_seconds_sum{status="succeeded"}')).toBeGreaterThan(0);
    expect(m.get('hindsight_http_shed_total')).toBe(0);
    expect(m.get('hindsight_model_runs_unfinished{status="queued"}')).toBe(0);

    // A run waiting in the table (as with MODEL_EXECUTION=queue) is counted by the next scrape.
    const prisma = t.app.get(PrismaService);
    const stored = await prisma.modelRun.findFirstOrThrow({ where: { seed: 424242 } });
    await prisma.modelRun.update({ where: { id: stored.id }, data: { status: 'queued' } });
    const later = parseMetrics((await request(server).get('/metrics')).text);
    expect(later.get('hindsight_model_runs_unfinished{status="queued"}')).toBe(1);
    await prisma.modelRun.update({ where: { id: stored.id }, data: { status: stored.status } });
  });

  it('keeps client-chosen operation names bounded', async () => {
    for (let i = 0; i < 60; i++) await t.gql(`query Op${i} { patterns { nodes { key } } }`);
    const m = parseMetrics((await request(t.app.getHttpServer()).get('/metrics')).text);
    const names = [...m.keys()].filter((k) => k.startsWith('hindsight_graphql_request_duration_seconds_count{'));
    // 50 names, plus "anonymous" and "other".
    expect(names.length).toBeLessThanOrEqual(50 + 2);
    expect(m.get('hindsight_graphql_request_duration_seconds_count{operation="other"}')).toBeGreaterThan(0);
  });
});

describe('/metrics access and load-shedding counts', () => {
  it('refuses a scraper without METRICS_TOKEN once one is set, and counts 503 refusals', async () => {
    const t = await startTestApp({ seed: false, env: { METRICS_TOKEN: 'scrape-secret-0123456789', HTTP_MAX_IN_FLIGHT: '1' } });
    const server = await t.app.listen(0, '127.0.0.1');
    const port = (server.address() as AddressInfo).port;
    const base = `http://127.0.0.1:${port}`;
    const held = new net.Socket();
    try {
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/metrics`, { headers: { Authorization: 'Bearer wrong-secret-0123456789' } })).status).toBe(401);
      // One request in flight: its body never finishes arriving.
      const arrived = new Promise<void>((resolve) => server.once('request', () => setImmediate(resolve)));
      await new Promise<void>((resolve) => held.connect(port, '127.0.0.1', resolve));
      held.write('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
      await arrived;
      const refused = await fetch(`${base}/patterns`);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      const scrape = await fetch(`${base}/metrics`, { headers: { Authorization: 'Bearer scrape-secret-0123456789' } });
      expect(scrape.status).toBe(200);
      const m = parseMetrics(await scrape.text());
      expect(m.get('hindsight_http_shed_total')).toBe(1);
      expect(m.get('hindsight_http_requests_in_flight')).toBe(2);
    } finally {
      held.destroy();
      await t.close();
    }
  });

  it('answers loopback clients only when no token is set', async () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://127.0.0.1:1/none' });
    expect(config.metricsToken).toBeNull();
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});

describe('/health/live and /health/ready', () => {
  it('is ready only once every migration is applied', async () => {
    const db = await createTestDatabase({ migrate: false });
    const app = await createApp(loadConfig({ DATABASE_URL: db.url }), db.url, { logger: false });
    try {
      await app.init();
      const server = app.getHttpServer();
      await request(server).get('/health/live').expect(200);
      const pending = await request(server).get('/health/ready').expect(503);
      expect(pending.body.status).toBe('error');
      expect(pending.body.details.database.status).toBe('up');
      expect(pending.body.details.migrations).toMatchObject({ status: 'down', reason: 'pending' });
      expect(pending.body.details.migrations.pending.length).toBeGreaterThan(0);

      await migrate(db.url, migrationsDir());
      const ready = await request(server).get('/health/ready').expect(200);
      expect(ready.body).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, migrations: { status: 'up' } } });
    } finally {
      await app.close();
      await db.drop();
    }
  });

  it('is live but not ready while the database is unreachable, and says only that', async () => {
    const url = 'postgresql://postgres:probe-password@127.0.0.1:1/unreachable';
    const app = await createApp(loadConfig({ DATABASE_URL: url, DB_CONNECT_TIMEOUT_MS: '500' }), url, { logger: false });
    try {
      await app.init();
      const server = app.getHttpServer();
      await request(server).get('/health/live').expect(200);
      const res = await request(server).get('/health/ready').expect(503);
      expect(res.body.details.database).toEqual({ status: 'down', reason: 'unreachable' });
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|probe-password/);
    } finally {
      await app.close();
    }
  });
});

describe('compression and headers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The bytes as sent (supertest would decompress them). */
  const raw = async (path: string, encoding = 'identity') => {
    const server = t.app.getHttpServer() as import('node:http').Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new Promise<{ status: number; headers: import('node:http').IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, headers: { 'Accept-Encoding': encoding } }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
        })
        .on('error', reject);
    });
  };

  it('compresses the explorer bundle, pages and assets when asked, and not otherwise', async () => {
    const plain = await raw('/explorer/assets/graphiql.js');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gz = await raw('/explorer/assets/graphiql.js', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(gz.body.length).toBeLessThan(plain.body.length / 2);
    const br = await raw('/explorer/assets/graphiql.js', 'br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

    for (const path of ['/incidents', `/incidents/${STACKEGG}`, '/assets/pages.css', '/assets/pages.js']) {
      const res = await raw(path, 'gzip, br');
      expect([path, res.status, res.headers['content-encoding']]).toEqual([path, 200, expect.stringMatching(/^(gzip|br)$/)]);
    }
  });

  it('compresses GraphQL answers when asked', async () => {
    const res = await request(t.app.getHttpServer())
      .post('/graphql')
      .set('Accept-Encoding', 'gzip')
      .send({ query: '{ incidents(first: 10) { nodes { slug title summary } } }' })
      .expect(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body.data.incidents.nodes.length).toBeGreaterThan(0);
  });

  it('does not say which framework answers', async () => {
    for (const path of ['/incidents', '/health', '/health/live', '/assets/pages.css', '/graphql?query=%7B__typename%7D']) {
      const res = await request(t.app.getHttpServer()).get(path);
      expect([path, res.headers['x-powered-by']]).toEqual([path, undefined]);
    }
  });
});
