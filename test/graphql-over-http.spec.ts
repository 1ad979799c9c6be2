import { serverAudits } from 'graphql-http';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * GraphQL over HTTP conformance, as graphql-http's own server audits judge it, against the
 * booted app on a real socket: every MUST and SHOULD item passes (MAY items are reported by the
 * audits as notices and are not required). Then the transport rules the audits do not cover:
 * which GET requests may run, mutations over GET, CORS and persisted queries.
 */
type GqlBody = { errors: { extensions: { code: string } }[] };

describe('GraphQL over HTTP', () => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await startTestApp({ seed: false, env: { CORS_ALLOWED_ORIGINS: 'https://app.example.com' } });
    await t.app.listen(0, '127.0.0.1');
    url = `${await t.app.getUrl()}/graphql`.replace('[::1]', '127.0.0.1');
  });
  afterAll(() => t.close());

  it('passes every MUST and SHOULD audit of graphql-http', async () => {
    const audits = serverAudits({ url });
    const required = audits.filter((a) => a.name.startsWith('MUST') || a.name.startsWith('SHOULD'));
    expect(required.length).toBeGreaterThan(30);
    const failed: string[] = [];
    for (const audit of required) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(`${audit.id} ${audit.name}: ${result.reason}`);
    }
    expect(failed).toEqual([]);
  });

  it('runs a GET query that negotiates its answer, and refuses one that does not', async () => {
    const q = encodeURIComponent('{ __typename }');
    const ok = await fetch(`${url}?query=${q}`, { headers: { accept: 'application/graphql-response+json' } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ data: { __typename: 'Query' } });
    const bare = await fetch(`${url}?query=${q}`, { headers: { accept: '*/*' } });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as GqlBody).errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('marks every answer no-store, with no ETag (nothing would revalidate one): data, errors, POST and GET alike', async () => {
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    const answers = [
      await fetch(url, { method: 'POST', headers: json, body: JSON.stringify({ query: '{ __typename }' }) }),
      await fetch(url, { method: 'POST', headers: json, body: JSON.stringify({ query: '{ nope' }) }),
      await fetch(`${url}?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/graphql-response+json' } }),
    ];
    expect(answers.map((a) => a.headers.get('cache-control'))).toEqual(['no-store', 'no-store', 'no-store']);
    expect(answers.map((a) => a.headers.get('etag'))).toEqual([null, null, null]);
  });

  it('never runs a mutation over GET', async () => {
    const m = encodeURIComponent('mutation { revokeApiToken(input: { token: "x" }) { apiToken { id } } }');
    const res = await fetch(`${url}?query=${m}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(405);
  });

  it('keeps 4xx for request errors in application/graphql-response+json and answers 200 in application/json', async () => {
    const body = JSON.stringify({ query: '{ nope' });
    const modern = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body });
    expect(modern.status).toBe(400);
    const legacy = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
    expect(legacy.status).toBe(200);
    expect(((await legacy.json()) as GqlBody).errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('answers CORS preflights, with CORS headers only for configured origins', async () => {
    const preflight = (origin: string) =>
      fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    const other = await preflight('https://evil.example.net');
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers an automatic persisted query with a wrong hash with PERSISTED_QUERY_HASH_MISMATCH', async () => {
    const extensions = { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } };
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }', extensions }) });
    expect(((await res.json()) as GqlBody).errors[0].extensions.code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
    const unknown = await fetch(`${url}?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } }))}`);
    expect(((await unknown.json()) as GqlBody).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});
