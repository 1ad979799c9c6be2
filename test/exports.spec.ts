import request from 'supertest';
import { PrismaService } from '@hindsight/db';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
/** supertest listens on a new port per request, so absolute links are compared without their origin. */
const withoutOrigin = (text: string) => text.replace(/http:\/\/127\.0\.0\.1:\d+/g, '');

type ExportedIncident = {
  format: string;
  slug: string;
  url: string;
  title: string;
  timeline: { key: string; url: string; kind: string; precision: string }[];
  causalFactors: { key: string; url: string; role: string }[];
  causalLinks: { from: string; to: string; kind: string }[];
  actionables: { key: string; url: string; status: string; modelVerdict: { outcome: string; reason: string } | null }[];
  modelVerdictsAvailable: boolean;
};

describe('incident and pattern exports for runbook tools', () => {
  let t: TestApp;
  const get = (path: string, accept?: string) => {
    const r = request(t.app.getHttpServer()).get(path);
    return accept ? r.set('Accept', accept) : r;
  };

  beforeAll(async () => {
    t = await startTestApp();
    await attachSeedModels(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  it('gives an incident as JSON with every item, its anchor link, API enum names and the model verdicts', async () => {
    const res = await get(`/incidents/${STACKEGG}.json`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.body as ExportedIncident;
    const gql = await t.gql<{ incident: { timeline: { key: string }[]; causalFactors: { key: string }[]; actionables: { key: string; status: string }[] } }>(
      `{ incident(slug: "${STACKEGG}") { timeline { key } causalFactors { key } actionables { key status } } }`,
    );
    expect(body).toMatchObject({ format: 'hindsight.incident/1', slug: STACKEGG, url: expect.stringMatching(new RegExp(`/incidents/${STACKEGG}$`)) });
    expect(body.timeline.map((e) => e.key)).toEqual(gql.data.incident.timeline.map((e) => e.key));
    expect(body.causalFactors.map((f) => f.key)).toEqual(gql.data.incident.causalFactors.map((f) => f.key));
    expect(body.actionables.map((a) => [a.key, a.status])).toEqual(gql.data.incident.actionables.map((a) => [a.key, a.status]));
    expect(body.timeline.every((e) => e.url.endsWith(`#timeline-${e.key}`) && /^[A-Z_]+$/.test(e.kind) && /^[A-Z_]+$/.test(e.precision))).toBe(true);
    expect(body.actionables.every((a) => a.url.endsWith(`#actionable-${a.key}`))).toBe(true);
    const factorKeys = new Set(body.causalFactors.map((f) => f.key));
    expect(body.causalLinks.length).toBeGreaterThan(0);
    expect(body.causalLinks.every((l) => factorKeys.has(l.from) && factorKeys.has(l.to))).toBe(true);
    expect(body.modelVerdictsAvailable).toBe(true);
    const judged = body.actionables.filter((a) => a.modelVerdict !== null);
    expect(judged.length).toBeGreaterThan(0);
    expect(judged.every((a) => ['PREVENTED', 'DELAYED', 'REDUCED', 'NOT_PREVENTED', 'NO_FAILURE'].includes(a.modelVerdict!.outcome) && a.modelVerdict!.reason.length > 0)).toBe(true);
  });

  it('answers the page address with the same JSON when the client asks for JSON, and HTML otherwise', async () => {
    const viaAccept = await get(`/incidents/${STACKEGG}`, 'application/json');
    expect(viaAccept.status).toBe(200);
    expect(viaAccept.headers['content-type']).toMatch(/^application\/json/);
    expect(withoutOrigin(viaAccept.text)).toEqual(withoutOrigin((await get(`/incidents/${STACKEGG}.json`)).text));
    const page = await get(`/incidents/${STACKEGG}`, 'text/html,application/xhtml+xml,application/json;q=0.9');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('gives an incident as Markdown with linked timeline entries, factors and follow-ups', async () => {
    const res = await get(`/incidents/${STACKEGG}.md`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    const json = (await get(`/incidents/${STACKEGG}.json`)).body as ExportedIncident;
    const text = withoutOrigin(res.text);
    expect(text.startsWith(`# ${json.title.replace(/([\\`*_[\]<>#|])/g, '\\$1')}\n`)).toBe(true);
    for (const heading of ['## Summary', '## Timeline', '## Causal factors', '## Follow-ups', '## Narrative']) expect(text).toContain(heading);
    for (const item of [...json.timeline, ...json.causalFactors, ...json.actionables]) expect(text).toContain(`](${withoutOrigin(item.url)})`);
    const closed = json.actionables.filter((a) => a.status === 'DONE' || a.status === 'WONT_DO').length;
    expect(text.match(/^- \[x\] /gm)?.length ?? 0).toBe(closed);
  });

  it('redirects an old slug to the current export, and answers an unknown one with a JSON NOT_FOUND', async () => {
    const prisma = t.app.get(PrismaService);
    const incident = await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG } });
    await prisma.incidentSlugAlias.create({ data: { slug: 'stackegg-old-name', incidentId: incident.id } });
    const moved = await get('/incidents/stackegg-old-name.md');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(`/incidents/${STACKEGG}.md`);
    const missing = await get('/incidents/no-such-incident.json');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('gives a pattern with its incidents as JSON and Markdown, and refuses a broken page cursor', async () => {
    const res = await get('/patterns/connection-cap.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ format: 'hindsight.pattern/1', key: 'connection-cap', incidents: [expect.objectContaining({ slug: STACKEGG })] });
    expect(res.body.incidents).toHaveLength(res.body.incidentCount);
    const md = await get('/patterns/connection-cap.md');
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect(withoutOrigin(md.text)).toContain(`(${withoutOrigin(res.body.incidents[0].url)})`);
    const bad = await get('/patterns/connection-cap.json?after=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((await get('/patterns/no-such-pattern.json')).status).toBe(404);
  });
});
