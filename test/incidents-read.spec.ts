import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app';

const FULL = `
  query One($slug: String!) {
    incident(slug: $slug) {
      slug title organization components
      source { title url language }
      started { at precision }
      patterns { key }
      timeline { key asWritten at precision kind text }
      causalFactors { key role component leadsTo { kind to { key } } followsFrom { from { key } } }
      causalLinks { kind from { key } to { key } }
      actionables { key title status owner dueDate overdue references { kind ref url } addresses { key } }
    }
  }`;

type Incident = {
  slug: string;
  source: { language: string };
  timeline: { key: string; asWritten: string | null; at: string | null; precision: string }[];
  causalFactors: { key: string; leadsTo: { kind: string; to: { key: string } }[] }[];
  causalLinks: { kind: string; from: { key: string }; to: { key: string } }[];
  actionables: { key: string; status: string; references: { kind: string; ref: string; url: string | null }[] }[];
  patterns: { key: string }[];
};

describe('GraphQL read API over the seeded incidents', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const one = async (slug: string) => {
    const res = await t.gql<{ incident: Incident }>(FULL, { slug });
    expect(res.errors).toBeUndefined();
    return res.data.incident;
  };

  it('returns ChangeProp with its as-written times, the date change and the feedback loop', async () => {
    const i = await one('changeprop-feedback-loop-2016');
    expect(i.timeline).toHaveLength(9);
    const written = i.timeline.map((e) => e.asWritten);
    expect(written).toEqual(expect.arrayContaining(['2016-05-05T02:3X', '2016-05-05T03:20:00 (ca.)']));
    const tenMinutes = i.timeline.find((e) => e.asWritten === '2016-05-05T02:3X')!;
    expect(tenMinutes).toMatchObject({ precision: 'TEN_MINUTES', at: '2016-05-05T02:30:00.000Z' });
    expect(i.timeline.find((e) => e.asWritten?.includes('(ca.)'))!.precision).toBe('APPROXIMATE');
    expect(i.timeline[0]!.at!.startsWith('2016-05-04')).toBe(true);
    expect(i.timeline[i.timeline.length - 1]!.at!.startsWith('2016-05-05')).toBe(true);
    expect(i.actionables).toHaveLength(12);
    const statuses = i.actionables.map((a) => a.status);
    expect(statuses.filter((s) => s === 'DONE')).toHaveLength(2);
    expect(statuses.filter((s) => s === 'WONT_DO')).toHaveLength(1);
    const refs = i.actionables.flatMap((a) => a.references.map((r) => r.ref));
    expect(refs).toEqual(expect.arrayContaining(['T134456', 'T134483', 'T134538', 'T134516', 'T134551', 'https://github.com/wikimedia/restbase/pull/604']));
    const phab = i.actionables.flatMap((a) => a.references).find((r) => r.ref === 'T134456')!;
    expect(phab).toEqual({ kind: 'PHABRICATOR', ref: 'T134456', url: 'https://phabricator.wikimedia.org/T134456' });
    expect(i.causalFactors).toHaveLength(23);
    expect(i.causalLinks).toHaveLength(27);
    expect(hasCycle(i.causalLinks)).toBe(true);
  });

  it('returns the Slack incident in English with its Vietnamese source recorded and its miss loop', async () => {
    const i = await one('slack-cache-metastability-2022');
    expect(i.source.language).toBe('vi');
    expect(i.timeline).toHaveLength(10);
    expect(i.timeline.filter((e) => e.at === null).every((e) => e.precision === 'NONE' && e.asWritten === null)).toBe(true);
    expect(i.actionables).toHaveLength(8);
    expect(hasCycle(i.causalLinks)).toBe(true);
  });

  it('returns the Apache post as ordered, untimed events', async () => {
    const i = await one('apache-outbound-calls-without-timeouts-2011');
    expect(i.timeline).toHaveLength(10);
    expect(i.timeline.every((e) => e.precision === 'NONE')).toBe(true);
    // The two fixes made; the post's other recommendations are advice, not follow-ups.
    expect(i.actionables.map((a) => a.key)).toEqual(['wordpress-curl-connect-and-total-timeouts', 'cluster-outbound-call-timeouts']);
    expect(i.causalFactors).toHaveLength(12);
  });

  it("starts the Apache incident on its post's date, to the day, so a date filter around it finds it", async () => {
    const res = await t.gql<{ incident: { started: { at: string; precision: string } } }>(`{ incident(slug: "apache-outbound-calls-without-timeouts-2011") { started { at precision } } }`);
    expect(res.data.incident.started).toEqual({ at: '2011-01-23T00:00:00.000Z', precision: 'DAY' });
    type Found = { incidents: { nodes: { slug: string }[] } };
    const around = await t.gql<Found>(`{ incidents(filter: { startedFrom: "2011-01-16T00:00:00Z", startedBefore: "2011-01-24T00:00:00Z" }) { nodes { slug } } }`);
    expect(around.errors).toBeUndefined();
    expect(around.data.incidents.nodes.map((n) => n.slug)).toEqual(['apache-outbound-calls-without-timeouts-2011']);
    const after = await t.gql<Found>(`{ incidents(filter: { startedFrom: "2011-01-24T00:00:00Z", startedBefore: "2012-01-01T00:00:00Z" }) { nodes { slug } } }`);
    expect(after.data.incidents.nodes).toEqual([]);
    // The list page's year filter too.
    const page = await request(t.app.getHttpServer()).get('/incidents?year=2011').expect(200);
    expect(page.text).toContain('href="/incidents/apache-outbound-calls-without-timeouts-2011"');
  });

  it('filters incidents by the status of their follow-ups: at least one in any of the given statuses', async () => {
    type Found = { incidents: { nodes: { slug: string; actionables: { status: string }[] }[] } };
    const all = await t.gql<Found>(`{ incidents(first: 10) { nodes { slug actionables { status } } } }`);
    const expected = (statuses: string[]) =>
      all.data.incidents.nodes.filter((n) => n.actionables.some((a) => statuses.includes(a.status))).map((n) => n.slug).sort();
    for (const statuses of [['OPEN'], ['DONE'], ['IN_PROGRESS', 'WONT_DO'], ['OPEN', 'IN_PROGRESS', 'DONE', 'WONT_DO']]) {
      const res = await t.gql<Found>(`query F($s: [ActionableStatus!]) { incidents(first: 10, filter: { actionableStatus: $s }) { nodes { slug actionables { status } } } }`, { s: statuses });
      expect(res.errors).toBeUndefined();
      expect({ statuses, slugs: res.data.incidents.nodes.map((n) => n.slug).sort() }).toEqual({ statuses, slugs: expected(statuses) });
    }
    // The seeds hold both: incidents with open follow-ups and incidents without.
    expect(expected(['OPEN']).length).toBeGreaterThan(0);
    expect(expected(['OPEN']).length).toBeLessThan(all.data.incidents.nodes.length);
    const refused = await t.gql(`{ incidents(filter: { actionableStatus: [LATER] }) { nodes { slug } } }`);
    expect(refused.errors?.[0]?.extensions?.code).toMatch(/GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT/);
  });

  it('returns StackEgg across its two days with second-precision times', async () => {
    const i = await one('stackegg-haproxy-session-cap-2015');
    expect(i.timeline).toHaveLength(18);
    expect(i.timeline[0]).toMatchObject({ asWritten: '10:23:14', at: '2015-03-31T10:23:14.000Z', precision: 'SECOND' });
    expect(i.timeline[i.timeline.length - 1]).toMatchObject({ asWritten: '15:37:38', at: '2015-04-01T15:37:38.000Z' });
    expect(i.actionables.filter((a) => a.status === 'DONE')).toHaveLength(4);
    expect(i.patterns.map((p) => p.key)).toContain('connection-cap');
  });

  it('answers NOT_FOUND for an unknown slug', async () => {
    const res = await t.gql(`{ incident(slug: "no-such-incident") { title } }`);
    expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(res.errors?.[0]?.message).toContain('no-such-incident');
  });

  it('pages through incidents with cursors and a stable total', async () => {
    const page = `query P($after: String) { incidents(first: 3, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { slug } } }`;
    type P = { incidents: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: { slug: string }[] } };
    const first = await t.gql<P>(page);
    expect(first.data.incidents.totalCount).toBe(4);
    expect(first.data.incidents.nodes.map((n) => n.slug)).toEqual([
      'slack-cache-metastability-2022',
      'changeprop-feedback-loop-2016',
      'stackegg-haproxy-session-cap-2015',
    ]);
    expect(first.data.incidents.pageInfo.hasNextPage).toBe(true);
    const second = await t.gql<P>(page, { after: first.data.incidents.pageInfo.endCursor });
    expect(second.data.incidents.nodes.map((n) => n.slug)).toEqual(['apache-outbound-calls-without-timeouts-2011']);
    expect(second.data.incidents.pageInfo.hasNextPage).toBe(false);
    expect(second.data.incidents.totalCount).toBe(4);
  });

  it('orders by title', async () => {
    const res = await t.gql<{ incidents: { nodes: { title: string }[] } }>(`{ incidents(orderBy: TITLE_ASC) { nodes { title } } }`);
    const titles = res.data.incidents.nodes.map((n) => n.title.toLowerCase());
    expect(titles).toEqual([...titles].sort());
  });

  it.each([
    [{ patterns: ['retry-amplification'] }, ['slack-cache-metastability-2022', 'changeprop-feedback-loop-2016']],
    [{ patterns: ['missing-timeout', 'connection-cap'] }, ['stackegg-haproxy-session-cap-2015', 'apache-outbound-calls-without-timeouts-2011']],
    [{ organization: 'slack' }, ['slack-cache-metastability-2022']],
    [{ component: 'haproxy' }, ['stackegg-haproxy-session-cap-2015']],
    [{ text: 'MAXCLIENTS' }, ['apache-outbound-calls-without-timeouts-2011']],
    [{ startedFrom: '2016-01-01T00:00:00Z', startedBefore: '2017-01-01T00:00:00Z' }, ['changeprop-feedback-loop-2016']],
  ])('filters incidents by %j', async (filter, expected) => {
    const res = await t.gql<{ incidents: { totalCount: number; nodes: { slug: string }[] } }>(
      `query F($filter: IncidentFilterInput) { incidents(filter: $filter) { totalCount nodes { slug } } }`,
      { filter },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.incidents.nodes.map((n) => n.slug)).toEqual(expected);
    expect(res.data.incidents.totalCount).toBe(expected.length);
  });

  it('searches text without regard to case or accents, with non-ASCII terms', async () => {
    const search = async (text: string) =>
      (await t.gql<{ incidents: { nodes: { slug: string }[] } }>(`query S($text: String) { incidents(filter: { text: $text }) { nodes { slug } } }`, { text }))
        .data.incidents.nodes.map((n) => n.slug);
    expect(await search('MÉTASTABLE')).toEqual(['slack-cache-metastability-2022']);
    expect(await search('ｍｅｍｃａｃｈｅｄ')).toEqual(['slack-cache-metastability-2022']);
    expect(await search('keep-alive')).toContain('stackegg-haproxy-session-cap-2015');
    expect(await search('%_%')).toEqual([]);
    expect(await search('Đường không tồn tại')).toEqual([]);
  });

  it('rejects a page over the cap and a malformed cursor as BAD_USER_INPUT', async () => {
    const big = await t.gql(`{ incidents(first: 101) { totalCount } }`);
    expect(big.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(big.errors?.[0]?.message).toMatch(/first/);
    const bad = await t.gql(`{ incidents(after: "not-a-cursor") { totalCount } }`);
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.errors?.[0]?.message).toMatch(/after.*cursor/);
  });

  it('lists actionables across incidents with filters', async () => {
    type A = { actionables: { totalCount: number; nodes: { key: string; status: string; incident: { slug: string } }[] } };
    const done = await t.gql<A>(`{ actionables(filter: { status: [DONE] }, first: 100) { totalCount nodes { key status incident { slug } } } }`);
    expect(done.data.actionables.totalCount).toBe(12);
    expect(done.data.actionables.nodes.every((a) => a.status === 'DONE')).toBe(true);
    const slack = await t.gql<A>(`{ actionables(filter: { incident: "slack-cache-metastability-2022", status: [OPEN] }) { totalCount nodes { key status incident { slug } } } }`);
    expect(slack.data.actionables.totalCount).toBe(4);
    const byPattern = await t.gql<A>(`{ actionables(filter: { pattern: "connection-cap" }) { totalCount nodes { incident { slug } } } }`);
    expect(new Set(byPattern.data.actionables.nodes.map((a) => a.incident.slug))).toEqual(new Set(['stackegg-haproxy-session-cap-2015']));
    const overdue = await t.gql<A>(`{ actionables(filter: { overdue: true }) { totalCount } }`);
    expect(overdue.data.actionables.totalCount).toBe(0);
    // Three-valued: an open item with no due date is not overdue, so `overdue: false` keeps it.
    const unresolved = await t.gql<A>(`{ actionables(filter: { status: [OPEN, IN_PROGRESS] }) { totalCount } }`);
    const notOverdue = await t.gql<A>(`{ actionables(filter: { status: [OPEN, IN_PROGRESS], overdue: false }) { totalCount } }`);
    expect(unresolved.data.actionables.totalCount).toBeGreaterThan(0);
    expect(notOverdue.data.actionables.totalCount).toBe(unresolved.data.actionables.totalCount);
    const all = await t.gql<A>(`{ actionables { totalCount } }`);
    const everyNotOverdue = await t.gql<A>(`{ actionables(filter: { overdue: false }) { totalCount } }`);
    expect(everyNotOverdue.data.actionables.totalCount).toBe(all.data.actionables.totalCount);
  });

  it('lists patterns with their incident counts', async () => {
    const res = await t.gql<{ patterns: { nodes: { key: string; incidentCount: number }[] } }>(`{ patterns { nodes { key incidentCount } } }`);
    const counts = Object.fromEntries(res.data.patterns.nodes.map((p) => [p.key, p.incidentCount]));
    expect(counts['missing-timeout']).toBeGreaterThanOrEqual(1);
    expect(counts['feedback-loop']).toBeGreaterThanOrEqual(1);
    const missing = await t.gql(`{ pattern(key: "nope") { key } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('reports database health', async () => {
    const res = await request(t.app.getHttpServer()).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: { status: 'up' } });
    expect(res.body.database.migrations).toBeGreaterThanOrEqual(1);
  });

  it('serves the GraphQL explorer and its assets without a CDN', async () => {
    const page = await request(t.app.getHttpServer()).get('/graphql').set('Accept', 'text/html');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/explorer/assets/graphiql.js');
    expect(page.text).not.toMatch(/https?:\/\/(unpkg|cdn|embeddable)/);
    const js = await request(t.app.getHttpServer()).get('/explorer/assets/graphiql.js');
    expect(js.status).toBe(200);
    expect(js.text.length).toBeGreaterThan(100_000);
  });
});

function hasCycle(links: { from: { key: string }; to: { key: string } }[]): boolean {
  const next = new Map<string, string[]>();
  for (const l of links) next.set(l.from.key, [...(next.get(l.from.key) ?? []), l.to.key]);
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (k: string): boolean => {
    if (state.get(k) === 'visiting') return true;
    if (state.get(k) === 'done') return false;
    state.set(k, 'visiting');
    const found = (next.get(k) ?? []).some(visit);
    state.set(k, 'done');
    return found;
  };
  return [...next.keys()].some(visit);
}

describe('query limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ seed: false });
  });
  afterAll(async () => {
    await t.close();
  });

  it('rejects a query nested deeper than the limit before running it', async () => {
    let selection = 'key';
    for (let i = 0; i < 6; i++) selection = `leadsTo { to { ${selection} } }`;
    const res = await t.gql(`{ incidents { nodes { causalFactors { ${selection} } } } }`);
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', measure: 'depth', depth: 16, limit: 12 });
    expect(res.errors?.[0]?.message).toMatch(/nested 16 levels deep; the limit is 12 \(GRAPHQL_MAX_DEPTH\)/);
  });

  it('answers an empty knowledge base with an empty page, not an error', async () => {
    const res = await t.gql<{ incidents: { totalCount: number; nodes: unknown[]; pageInfo: { endCursor: string | null } } }>(
      `{ incidents { totalCount nodes { slug } pageInfo { endCursor } } }`,
    );
    expect(res.data.incidents).toEqual({ totalCount: 0, nodes: [], pageInfo: { endCursor: null } });
  });
});
