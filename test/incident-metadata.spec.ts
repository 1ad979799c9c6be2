import request from 'supertest';
import type { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { AccountsService } from '@hindsight/tracking';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { projectRoot } from '@hindsight/db';
import path from 'node:path';
import { loadConfig } from '../apps/api/src/config/app-config';
import { issueTokens } from './support/api-tokens';
import { hidden } from './support/page-session';
import { tableHashes } from './support/table-hash';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const CHANGEPROP = 'changeprop-feedback-loop-2016';
const SLACK = 'slack-cache-metastability-2022';
const APACHE = 'apache-outbound-calls-without-timeouts-2011';

const METADATA = `slug version severity nearMiss tags customerImpact { minutes precision approximate derived }`;
type Metadata = {
  slug: string;
  version: number;
  severity: string | null;
  nearMiss: boolean;
  tags: string[];
  customerImpact: { minutes: number; precision: string; approximate: boolean; derived: boolean } | null;
};

const PASSWORD = 'correct horse battery';
function cookiesOf(res: request.Response): string {
  const set = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  return set.map((c) => c.split(';')[0]!).join('; ');
}

describe('incident metadata: severity on a configured scale, near miss, tags, customer impact', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let editor: Record<string, string>;
  const gql = <T>(query: string, variables: Record<string, unknown> = {}, headers = editor) => t.gql<T>(query, variables, headers);
  const metadata = async (slug: string) => {
    const res = await gql<{ incident: Metadata }>(`query M($s: String!) { incident(slug: $s) { ${METADATA} } }`, { s: slug });
    expect(res.errors).toBeUndefined();
    return res.data.incident;
  };
  const update = (slug: string, expectedVersion: number, patch: Record<string, unknown>) =>
    gql<{ updateIncident: { incident: Metadata } }>(
      `mutation U($s: String!, $v: Int!, $p: IncidentPatchInput!) { updateIncident(input: { slug: $s, expectedVersion: $v, patch: $p }) { incident { ${METADATA} } } }`,
      { s: slug, v: expectedVersion, p: patch },
    );

  beforeAll(async () => {
    // A scale of the installation's own, to show the setting is what decides.
    t = await startTestApp({ env: { INCIDENT_SEVERITY_LEVELS: 'P1,P2,P3', PASSWORD_HASH_ROUNDS: '4' } });
    prisma = testPrisma(t.db.url);
    editor = (await issueTokens(t)).as('editor');
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('ships the four incidents with what their sources state, and nothing where they state nothing', async () => {
    expect(await metadata(STACKEGG)).toMatchObject({
      severity: null,
      nearMiss: false,
      tags: ['browser-game', 'haproxy', 'keep-alive', 'load-balancer', 'stackegg'],
      // "a 6-minute public outage of Stack Overflow"
      customerImpact: { minutes: 6, precision: 'MINUTE', approximate: false, derived: false },
    });
    // "for roughly one hour"
    expect((await metadata(CHANGEPROP)).customerImpact).toEqual({ minutes: 60, precision: 'APPROXIMATE', approximate: true, derived: false });
    // Neither source gives a duration, nor a start and mitigation time to work one out from.
    expect((await metadata(SLACK)).customerImpact).toBeNull();
    expect((await metadata(APACHE)).customerImpact).toBeNull();
    for (const slug of [STACKEGG, CHANGEPROP, SLACK, APACHE]) expect((await metadata(slug)).severity).toBeNull();
  });

  it('reports the configured scale, and refuses a level outside it naming the field, writing nothing', async () => {
    const scale = await gql<{ severityLevels: string[] }>(`{ severityLevels }`);
    expect(scale.data.severityLevels).toEqual(['P1', 'P2', 'P3']);
    const before = await tableHashes(t.db.url);
    const { version } = await metadata(SLACK);
    const res = await update(SLACK, version, { severity: 'SEV1' });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toContain('patch.severity');
    expect(res.errors?.[0]?.message).toContain('P1, P2, P3');
    expect(await tableHashes(t.db.url)).toEqual(before);
  });

  it('corrects every field through updateIncident against the version read, normalising tags, with an audit event each', async () => {
    const { version } = await metadata(SLACK);
    const res = await update(SLACK, version, {
      severity: 'P1',
      nearMiss: false,
      tags: ['Cache Stampede', ' cache_stampede ', 'Vitess', 'consul'],
      customerImpact: { minutes: 95, precision: 'APPROXIMATE' },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.updateIncident.incident).toEqual({
      slug: SLACK,
      version: version + 1,
      severity: 'P1',
      nearMiss: false,
      tags: ['cache-stampede', 'consul', 'vitess'],
      customerImpact: { minutes: 95, precision: 'APPROXIMATE', approximate: true, derived: false },
    });
    const { id } = await prisma.incident.findUniqueOrThrow({ where: { slug: SLACK } });
    const events = await prisma.auditEvent.findMany({ where: { incidentId: id, version: version + 1 }, orderBy: { id: 'asc' } });
    expect(events.map((e) => [e.field, e.from, e.to])).toEqual([
      ['severity', null, 'P1'],
      ['tags', ['consul', 'memcached', 'metastable-failure', 'throttling', 'vitess'], ['cache-stampede', 'consul', 'vitess']],
      ['customerImpact', null, { minutes: 95, precision: 'approximate' }],
    ]);

    // Tags are searchable at once: the search document is written in the same transaction.
    const found = await gql<{ incidents: { nodes: { slug: string }[] } }>(`{ incidents(filter: { text: "stampede" }) { nodes { slug } } }`);
    expect(found.data.incidents.nodes.map((n) => n.slug)).toEqual([SLACK]);

    // A writer holding the old version gets CONFLICT and changes nothing.
    const before = await tableHashes(t.db.url);
    const stale = await update(SLACK, version, { severity: 'P3' });
    expect(stale.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(await tableHashes(t.db.url)).toEqual(before);

    // Null clears severity and the stated impact.
    const cleared = await update(SLACK, version + 1, { severity: null, customerImpact: null });
    expect(cleared.data.updateIncident.incident).toMatchObject({ severity: null, customerImpact: null });
  });

  it('refuses a bad duration or tag with the field and reason', async () => {
    const { version } = await metadata(APACHE);
    const res = await update(APACHE, version, { customerImpact: { minutes: -5, precision: 'NONE' }, tags: ['!!!'] });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const fields = (res.errors?.[0]?.extensions?.problems as { field: string }[]).map((p) => p.field).sort();
    expect(fields).toEqual(['input.patch.customerImpact.minutes', 'input.patch.customerImpact.precision', 'input.patch.tags[0]']);
  });

  it('works the customer impact out from the start and mitigation when none is stated, and says so', async () => {
    const create = await gql<{ createIncident: { incident: Metadata } }>(
      `mutation C($i: CreateIncidentInput!) { createIncident(input: $i) { incident { ${METADATA} } } }`,
      {
        i: {
          slug: 'near-miss-config-push',
          title: 'A config push caught by the canary',
          organization: 'Example Shop',
          summary: 'The canary stopped a bad config push before it reached customers.',
          source: { title: 'Internal review', language: 'en' },
          keyTimes: { started: { at: '2026-03-01T10:00:00Z', precision: 'MINUTE' }, mitigated: { at: '2026-03-01T10:45:00Z', precision: 'TEN_MINUTES' } },
          severity: 'P3',
          nearMiss: true,
          tags: ['Canary', 'config'],
          status: 'PUBLISHED',
        },
      },
    );
    expect(create.errors).toBeUndefined();
    expect(create.data.createIncident.incident).toMatchObject({
      severity: 'P3',
      nearMiss: true,
      tags: ['canary', 'config'],
      customerImpact: { minutes: 45, precision: 'TEN_MINUTES', approximate: true, derived: true },
    });
  });

  it('filters by severity, near miss and tags, and counts the result set by severity, near miss and tag', async () => {
    type List = { incidents: { totalCount: number; nodes: { slug: string }[]; facets: { kind: string; values: { value: string; count: number }[] }[] } };
    const list = async (filter: Record<string, unknown>) => {
      const res = await gql<List>(`query L($f: IncidentFilterInput) { incidents(filter: $f, first: 50) { totalCount nodes { slug } facets(first: 50) { kind values { value count } } } }`, { f: filter });
      expect(res.errors).toBeUndefined();
      return res.data.incidents;
    };
    expect((await list({ severity: ['P3'] })).nodes.map((n) => n.slug)).toEqual(['near-miss-config-push']);
    expect((await list({ nearMiss: true })).nodes.map((n) => n.slug)).toEqual(['near-miss-config-push']);
    expect((await list({ nearMiss: false })).totalCount).toBe(4);
    expect((await list({ tags: ['HAProxy', 'keep alive'] })).nodes.map((n) => n.slug)).toEqual([STACKEGG]);
    expect((await list({ tags: ['haproxy', 'canary'] })).totalCount).toBe(0);

    const all = await list({});
    const facet = (kind: string) => all.facets.find((f) => f.kind === kind)!.values;
    expect(facet('SEVERITY')).toEqual([
      { value: 'none', count: 4 },
      { value: 'P3', count: 1 },
    ]);
    expect(facet('NEAR_MISS')).toEqual([
      { value: 'false', count: 4 },
      { value: 'true', count: 1 },
    ]);
    expect(facet('TAG')).toEqual(expect.arrayContaining([{ value: 'haproxy', count: 1 }, { value: 'canary', count: 1 }]));
  });

  it('filters the list page by severity and tag, with their facets on a search', async () => {
    const listed = (html: string) => [...html.matchAll(/<li class="incident-item">\s*<h2><a href="\/incidents\/([^"]+)"/g)].map((m) => m[1]);
    const bySeverity = await request(t.app.getHttpServer()).get('/incidents?severity=P3');
    expect(bySeverity.status).toBe(200);
    expect(listed(bySeverity.text)).toEqual(['near-miss-config-push']);
    expect(bySeverity.text).toContain('<option value="P3" selected>P3</option>');
    expect(listed((await request(t.app.getHttpServer()).get('/incidents?tag=HAProxy')).text)).toEqual([STACKEGG]);
    const search = await request(t.app.getHttpServer()).get('/incidents?q=canary');
    expect(search.text).toContain('<h2>Severity</h2>');
    expect(search.text).toContain('href="/incidents?q=canary&amp;severity=P3"');
    expect(search.text).toContain('href="/incidents?q=canary&amp;tag=canary"');
  });

  it('exports the metadata as JSON and Markdown, and shows it on the incident page', async () => {
    const json = await request(t.app.getHttpServer()).get(`/incidents/${STACKEGG}.json`);
    expect(json.body).toMatchObject({
      severity: null,
      nearMiss: false,
      tags: ['browser-game', 'haproxy', 'keep-alive', 'load-balancer', 'stackegg'],
      customerImpact: { minutes: 6, precision: 'MINUTE', approximate: false, derived: false },
    });
    const md = await request(t.app.getHttpServer()).get(`/incidents/near-miss-config-push.md`);
    expect(md.text).toContain('- Severity: P3');
    expect(md.text).toContain('- Near miss: yes');
    expect(md.text).toContain('- Tags: canary, config');
    expect(md.text).toContain('- Customer impact: about 45 min (within ten minutes), from the start to mitigation; the record states none');
    const page = await request(t.app.getHttpServer()).get(`/incidents/${STACKEGG}`);
    const facts = /<dl class="facts">([\s\S]*?)<\/dl>/.exec(page.text)![1]!;
    expect(facts).toContain('<dt>Customer impact</dt><dd>6 min (to the minute)</dd>');
    expect(facts).toContain('<dt>Severity</dt><dd><span class="not-stated">not stated</span></dd>');
    expect(facts).toContain('<li>haproxy</li>');
  });

  it('is edited on the page form with the version check: a stale form shows the conflict and writes nothing', async () => {
    const accounts = new AccountsService(prisma, { passwordHashRounds: 4, sessionIdleSeconds: 3600, sessionMaxAgeSeconds: 43200 });
    await accounts.create('metadata-editor', 'editor', { name: 'test-setup', tokenId: null }, PASSWORD);
    const signInForm = await request(t.app.getHttpServer()).get('/sign-in');
    const signedIn = await request(t.app.getHttpServer())
      .post('/sign-in')
      .set('Cookie', cookiesOf(signInForm))
      .type('form')
      .send({ _csrf: hidden(signInForm.text, '_csrf'), name: 'metadata-editor', password: PASSWORD, next: '/' });
    expect(signedIn.status).toBe(303);
    const cookie = cookiesOf(signedIn);
    const EDIT = `/incidents/${APACHE}/edit`;
    const form = await request(t.app.getHttpServer()).get(EDIT).set('Cookie', cookie);
    expect(form.text).toContain('<option value="P2">P2</option>');
    const csrf = hidden(form.text, '_csrf')!;
    const version = hidden(form.text, 'version')!;
    const send = (fields: Record<string, string>) => request(t.app.getHttpServer()).post(EDIT).set('Cookie', cookie).type('form').send({ _csrf: csrf, ...fields });

    const bad = await send({ version, customerImpactMinutes: 'an hour' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="field-customerImpactMinutes-error">customerImpactMinutes: expected whole minutes/);

    const saved = await send({ version, severity: 'P2', nearMiss: 'no', tags: 'Apache, mpm prefork', customerImpactMinutes: '30', customerImpactPrecision: 'approximate' });
    expect(saved.status).toBe(303);
    expect(await prisma.incident.findUniqueOrThrow({ where: { slug: APACHE } })).toMatchObject({
      severity: 'P2',
      tags: ['apache', 'mpm-prefork'],
      customerImpactMinutes: 30,
      customerImpactPrecision: 'approximate',
      version: Number(version) + 1,
    });

    const before = await tableHashes(t.db.url);
    const stale = await send({ version, severity: 'P1' });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('Someone changed this incident');
    expect(await tableHashes(t.db.url)).toEqual(before);
  });

  it('refuses seed files rated on another scale before writing anything', async () => {
    const seeds = readSeedFiles(path.join(projectRoot(), 'seeds'));
    const renamed = { ...seeds.incidents[0]!, slug: 'rated-elsewhere', severity: 'SEV1' };
    const before = await tableHashes(t.db.url);
    const error = await seedDatabase(prisma, { ...seeds, incidents: [renamed] }, { severityLevels: ['P1', 'P2', 'P3'] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'incidents/rated-elsewhere.json.severity' } });
    expect(await tableHashes(t.db.url)).toEqual(before);
    // On the default scale the same file is fine.
    expect((await seedDatabase(prisma, { ...seeds, incidents: [renamed] })).incidents).toEqual([{ slug: 'rated-elsewhere', created: true, changed: true }]);
  });

  it('refuses a bad scale at start with the variable and the reason', () => {
    const load = (levels: string) => () => loadConfig({ INCIDENT_SEVERITY_LEVELS: levels }, process.cwd(), false);
    expect(loadConfig({}, process.cwd(), false).severityLevels).toEqual(['SEV1', 'SEV2', 'SEV3', 'SEV4']);
    for (const [levels, reason] of [
      ['SEV1', 'expected 2 to 12'],
      ['SEV1,sev1', 'each level once'],
      ['SEV 1,SEV 2', 'levels are letters'],
    ] as const) {
      let error: unknown;
      try {
        load(levels)();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toMatch(new RegExp(`INCIDENT_SEVERITY_LEVELS: ${reason}`));
    }
  });
});
