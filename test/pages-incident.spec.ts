import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles } from '@hindsight/incidents';
import { AppModule } from '../apps/api/src/app.module';
import { loadConfig } from '../apps/api/src/config/app-config';
import { INCIDENT_MODEL_PANEL, type IncidentModelPanel, type ModelPanelRequest } from '../apps/api/src/pages/incident-model-panel.token';
import { elements, sectionById, textOf } from './support/html-inspect';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

const SEEDS = readSeedFiles(path.join(projectRoot(), 'seeds')).incidents;
const CHANGEPROP = 'changeprop-feedback-loop-2016';

describe('incident pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string) => request(t.app.getHttpServer()).get(url);

  it.each(SEEDS.map((s) => [s.slug, s] as const))('renders %s with a stable anchor for every event, factor and actionable', async (slug, seed) => {
    const res = await get(`/incidents/${slug}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const ids = elements(res.text).map((e) => e.attrs.id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = [
      ...seed.timeline.map((e) => `timeline-${e.key}`),
      ...seed.causalFactors.map((f) => `factor-${f.key}`),
      ...seed.actionables.map((a) => `actionable-${a.key}`),
    ];
    expect(ids).toEqual(expect.arrayContaining(expected));
    // Each anchor has its visible permalink, its copy button and its runbook snippet.
    const hrefs = elements(res.text).filter((e) => e.tag === 'a').map((e) => e.attrs.href);
    for (const id of expected) {
      expect(hrefs).toContain(`#${id}`);
      expect(ids).toContain(`snippet-${id}`);
    }
    const h1 = elements(res.text).find((e) => e.tag === 'h1')!;
    expect(textOf(sectionById(res.text, h1.attrs.id!))).toBe(seed.title);
    expect(textOf(res.text)).toContain(seed.organization);
    // Headings nest: one h1, the page's sections as h2, the narrative's own headings below them.
    expect(elements(res.text).filter((e) => e.tag === 'h1')).toHaveLength(1);
    expect(textOf(sectionById(res.text, 'narrative'))).toContain('What happened');
    expect(sectionById(res.text, 'narrative')).toMatch(/<h3>What happened<\/h3>/);
  });

  it('shows ChangeProp times as written, with their precision, and its key times', async () => {
    const html = (await get(`/incidents/${CHANGEPROP}`)).text;
    const spike = textOf(sectionById(html, 'timeline-restbase-bytes-out-and-cpu-spike'));
    expect(spike).toContain('2016-05-05T02:3X');
    expect(spike).toContain('2016-05-05 02:30–02:39 UTC');
    expect(spike).toContain('within ten minutes');
    expect(spike).toContain('Observation');
    const mitigation = textOf(sectionById(html, 'timeline-changeprop-service-stopped'));
    expect(mitigation).toContain('2016-05-05T03:20:00 (ca.)');
    expect(mitigation).toContain('approximate');
    const facts = textOf(html);
    expect(facts).toContain('Detected 2016-05-05 02:38:14 UTC (to the second)');
    expect(facts).toContain('Started 2016-05-05 02:30–02:39 UTC (within ten minutes)');
  });

  it("shows the incident's own durations with their precision, and what the checks of its key times found", async () => {
    const changeprop = textOf(sectionById((await get(`/incidents/${CHANGEPROP}`)).text, 'durations'));
    // Started within ten minutes: every duration from it is approximate, as precise as its coarser end.
    expect(changeprop).toContain('Time to detect about 8.2 min (within ten minutes)');
    expect(changeprop).toContain('Time to mitigate about 50 min (approximate)');
    expect(changeprop).toContain('The key times pass the checks');
    const stackegg = sectionById((await get('/incidents/stackegg-haproxy-session-cap-2015')).text, 'durations');
    expect(textOf(stackegg)).toContain('Time to mitigate 3 h 23 min (to the second)');
    expect(textOf(stackegg)).toContain('Time to resolve 29.2 h (to the second)');
    const check = textOf(sectionById(stackegg.replace('<li class="check-resolved-long-after-mitigation">', '<li id="check" class="check-resolved-long-after-mitigation">'), 'check'));
    expect(check).toMatch(/^Resolved long after mitigation: "resolved" is 25\.9 h after mitigation/);
    expect(check).toContain('Left out of the distributions across incidents: time to resolve.');
    expect(elements(stackegg).some((e) => e.tag === 'a' && e.attrs.href === '/durations')).toBe(true);
    const slack = textOf(sectionById((await get('/incidents/slack-cache-metastability-2022')).text, 'durations'));
    expect(slack).toContain('Time to detect not known: the record gives no detection time');
    expect(slack).toContain('this record gives no pair of key times to measure or check');
  });

  it('links the durations page from the navigation of every page', async () => {
    for (const url of [`/incidents/${CHANGEPROP}`, '/incidents', '/durations', '/patterns']) {
      const nav = elements((await get(url)).text).filter((e) => e.tag === 'a' && e.attrs.href === '/durations');
      expect({ url, linked: nav.length > 0 }).toEqual({ url, linked: true });
    }
  });

  it('marks untimed events and second-precision events the way their sources gave them', async () => {
    const apache = (await get('/incidents/apache-outbound-calls-without-timeouts-2011')).text;
    const items = elements(sectionById(apache, 'timeline')).filter((e) => e.tag === 'li' && e.attrs.id?.startsWith('timeline-'));
    expect(items).toHaveLength(10);
    expect(textOf(sectionById(apache, 'timeline')).match(/No time given/g)).toHaveLength(10);
    const slack = (await get('/incidents/slack-cache-metastability-2022')).text;
    expect(textOf(sectionById(slack, 'timeline-consul-25pct-step-at-peak'))).toMatch(/^22\/2 2022-02-22 day only/);
    // A date known only from context is shown as such, not as "no time".
    const dated = textOf(sectionById(slack, 'timeline-cache-hit-rate-drops'));
    expect(dated).toMatch(/^2022-02-22 day only/);
    expect(dated).not.toContain('No time given');
    expect(textOf(sectionById(slack, 'timeline-earlier-25pct-consul-steps-uneventful'))).toMatch(/^No time given/);
    const stackegg = (await get('/incidents/stackegg-haproxy-session-cap-2015')).text;
    const first = textOf(sectionById(stackegg, 'timeline-stackegg-enabled-network-wide'));
    expect(first).toContain('10:23:14');
    expect(first).toContain('2015-03-31 10:23:14 UTC');
    expect(first).toContain('to the second');
  });

  it('draws the causal graph with linked nodes, styled link kinds, and the feedback loops called out', async () => {
    const html = (await get(`/incidents/${CHANGEPROP}`)).text;
    const factors = sectionById(html, 'causal-factors');
    const svg = factors.slice(factors.indexOf('<svg'), factors.indexOf('</svg>') + 6);
    const nodes = elements(svg).filter((e) => e.tag === 'a');
    expect(nodes).toHaveLength(23);
    expect(nodes.every((n) => n.attrs.href === `#factor-${n.attrs['data-key']}`)).toBe(true);
    const edges = elements(svg).filter((e) => e.tag === 'path' && e.attrs.class?.startsWith('edge '));
    expect(edges).toHaveLength(27);
    expect(new Set(edges.map((e) => e.attrs.class!.split(' ')[1]))).toEqual(new Set(['edge-causes', 'edge-amplifies', 'edge-enables']));
    // Dashes tell the kinds apart without colour.
    expect(new Set(edges.map((e) => `${e.attrs.class!.split(' ')[1]}:${e.attrs['stroke-dasharray'] ?? 'solid'}`)).size).toBe(3);
    expect(edges.every((e) => /^url\(#cg-arrow-/.test(e.attrs['marker-end'] ?? ''))).toBe(true);
    // The retry loop: requests → sync update error 500 → retries → requests again.
    const loop = edges.filter((e) => e.attrs.class!.includes('edge-loop')).map((e) => `${e.attrs['data-from']}>${e.attrs['data-to']}`);
    expect(loop).toEqual(
      expect.arrayContaining([
        'changeprop-requests-no-cache-update>restbase-sync-update-error-500',
        'restbase-sync-update-error-500>changeprop-retries-on-500',
        'changeprop-retries-on-500>changeprop-requests-no-cache-update',
        'html-resource-change-event-emitted>changeprop-requests-no-cache-update',
      ]),
    );
    expect(loop).not.toContain('uppercase-title-edit>changeprop-requests-no-cache-update');
    // The text summary says the same for people who cannot see the drawing.
    const summary = textOf(sectionById(html, 'graph-summary'));
    expect(summary).toContain('23 causal factors joined by 27 links');
    expect(summary).toContain('3 feedback loops');
    expect(summary).toContain('ChangeProp asks for a no-cache re-render enables Failed update returns HTTP 500 causes ChangeProp retries every HTTP 500 amplifies ChangeProp asks for a no-cache re-render again.');
    expect(elements(svg)[0]!.attrs['aria-describedby']).toBe('graph-summary');
    // The legend names every link kind and the loop style.
    expect(textOf(factors)).toMatch(/causes .*amplifies .*enables .*part of a feedback loop/);
    // And the list says it per factor, with its links.
    const retries = textOf(sectionById(html, 'factor-changeprop-retries-on-500'));
    expect(retries).toContain('Part of a feedback loop');
    expect(retries).toContain('Leads to amplifies ChangeProp asks for a no-cache re-render');
    expect(retries).toContain('Addressed by Make ChangeProp retries less aggressive (T134483)');
    expect(textOf(sectionById(html, 'factor-uppercase-title-edit'))).not.toContain('Part of a feedback loop');
  });

  it('says plainly when an incident has no feedback loop', async () => {
    const html = (await get('/incidents/stackegg-haproxy-session-cap-2015')).text;
    expect(textOf(sectionById(html, 'graph-summary'))).toContain('There are no feedback loops');
    expect(html).not.toContain('edge-loop');
  });

  it('lists actionables with status, owner, due date, tracker links and what they address', async () => {
    const html = (await get(`/incidents/${CHANGEPROP}`)).text;
    const bound = sectionById(html, 'actionable-changeprop-bound-processing-concurrency');
    expect(textOf(bound)).toContain('Status Open Owner ChangeProp service Due No due date');
    const tracker = elements(bound).find((e) => e.tag === 'a' && e.attrs.href === 'https://phabricator.wikimedia.org/T134456')!;
    expect(tracker.attrs.rel).toBe('noopener noreferrer');
    expect(textOf(bound)).toContain('T134456 (Phabricator)');
    expect(elements(bound).some((e) => e.attrs.href === '#factor-changeprop-unbounded-concurrency')).toBe(true);
    expect(textOf(sectionById(html, 'actionable-restbase-temporary-dependency-update-logging'))).toContain('Status Won’t do');
    expect(textOf(sectionById(html, 'actionables'))).toContain('9 of 12 still open or in progress.');
  });

  it('offers each anchor as a Markdown link for runbooks, absolute and on this host', async () => {
    const res = await get(`/incidents/${CHANGEPROP}`);
    const host = res.request.url.replace(/\/incidents\/.*$/, '');
    const snippet = textOf(sectionById(res.text, 'snippet-factor-changeprop-retries-on-500'));
    expect(snippet).toBe(
      `[ChangeProp feedback loop overloads RESTBase and Parsoid (May 2016) — ChangeProp retries every HTTP 500](${host}/incidents/${CHANGEPROP}#factor-changeprop-retries-on-500)`,
    );
    // Copy buttons start hidden: without JavaScript nobody sees a button that does nothing.
    const buttons = elements(res.text).filter((e) => e.tag === 'button');
    expect(buttons.length).toBeGreaterThan(0);
    expect(buttons.every((b) => 'hidden' in b.attrs && b.attrs.type === 'button')).toBe(true);
  });

  it('links each pattern to its page and keeps the model aside beside the narrative with an honest empty state', async () => {
    const html = (await get(`/incidents/${CHANGEPROP}`)).text;
    expect(elements(html).filter((e) => e.tag === 'a' && e.attrs.href?.startsWith('/patterns/')).map((e) => e.attrs.href)).toEqual(
      expect.arrayContaining(['/patterns/feedback-loop', '/patterns/retry-amplification']),
    );
    const aside = sectionById(html, 'model');
    expect(aside.startsWith('<aside')).toBe(true);
    expect(textOf(aside)).toBe('Model No model is attached to this incident yet.');
    // The aside follows the narrative inside the two-column body.
    expect(html.indexOf('id="narrative"')).toBeLessThan(html.indexOf('id="model"'));
  });

  it('links editors, and only editors, from the model aside to the model builder', async () => {
    const { tokens } = await issueTokens(t);
    const linkOf = async (token: string | null) => {
      const req = get(`/incidents/${CHANGEPROP}`);
      const html = (await (token ? req.set('Authorization', `Bearer ${token}`) : req)).text;
      return elements(sectionById(html, 'model')).filter((e) => e.tag === 'a' && e.attrs.href?.endsWith('/model-builder')).map((e) => e.attrs.href);
    };
    expect(await linkOf(tokens.editor)).toEqual([`/incidents/${CHANGEPROP}/model-builder`]);
    expect(await linkOf(tokens.viewer)).toEqual([]);
    expect(await linkOf(null)).toEqual([]);
  });

  it('sends security headers and no inline script, style or event handler', async () => {
    const res = await get(`/incidents/${CHANGEPROP}`);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('same-origin');
    const all = elements(res.text);
    expect(all.filter((e) => e.tag === 'script').map((e) => e.attrs.src)).toEqual(['/assets/pages.js']);
    expect(res.text).toMatch(/<script src="\/assets\/pages.js" defer><\/script>/);
    expect(all.filter((e) => e.tag === 'style' || 'style' in e.attrs)).toEqual([]);
    expect(all.flatMap((e) => Object.keys(e.attrs)).filter((name) => name.startsWith('on'))).toEqual([]);
  });

  it('serves its stylesheet and script from the app, under the same headers', async () => {
    const css = await get('/assets/pages.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.text).toContain('.incident-body');
    const js = await get('/assets/pages.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect(js.text).toContain('copy-button');
    expect((await get('/assets/other.js')).status).toBe(404);
    // Nothing on any page loads from another origin.
    const html = (await get(`/incidents/${CHANGEPROP}`)).text;
    const loads = elements(html).flatMap((e) => (e.tag === 'script' || e.tag === 'img' ? [e.attrs.src] : e.tag === 'link' ? [e.attrs.href] : []));
    expect(loads.every((url) => url !== undefined && (url.startsWith('/') || url.startsWith('data:')))).toBe(true);
  });

  it('answers an unknown slug with a 404 page a person can act on', async () => {
    const res = await get('/incidents/no-such-incident');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(textOf(res.text)).toContain('Incident "no-such-incident" does not exist.');
    expect(elements(res.text).some((e) => e.attrs.href === '/incidents')).toBe(true);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    // The slug is echoed as text, never as markup.
    const hostile = await get('/incidents/%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(hostile.status).toBe(404);
    expect(hostile.text).toContain('Incident &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot; does not exist.');
    expect(elements(hostile.text).filter((e) => e.tag === 'script').map((e) => e.attrs.src)).toEqual(['/assets/pages.js']);
  });

  it('redirects a renamed slug permanently to the current one, keeping the query string', async () => {
    const prisma = testPrisma(t.db.url);
    try {
      const incident = await prisma.incident.findUniqueOrThrow({ where: { slug: CHANGEPROP } });
      await prisma.incidentSlugAlias.create({ data: { slug: 'changeprop-retry-loop-2016', incidentId: incident.id } });
    } finally {
      await prisma.onModuleDestroy();
    }
    const moved = await get('/incidents/changeprop-retry-loop-2016');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(`/incidents/${CHANGEPROP}`);
    // A linked what-if keeps its parameters through the move.
    const withQuery = await get('/incidents/changeprop-retry-loop-2016?arrivalRate=12&retries=3');
    expect(withQuery.status).toBe(301);
    expect(withQuery.headers.location).toBe(`/incidents/${CHANGEPROP}?arrivalRate=12&retries=3`);
    expect((await get(moved.headers.location!)).status).toBe(200);
  });

  it('renders a page within the GraphQL query budget, whatever the size of the incident', async () => {
    const prisma = t.app.get(PrismaService);
    const count = async (run: () => Promise<unknown>) => {
      const before = prisma.statementCount;
      await run();
      return prisma.statementCount - before;
    };
    const page = (slug: string) => count(() => get(`/incidents/${slug}`).expect(200));
    const graphql = (slug: string) =>
      count(() =>
        t.gql(
          `query($slug: String!) { incident(slug: $slug) {
            title organization summary narrative impact started { at precision } patterns { key name }
            timeline { key asWritten at precision kind text }
            causalFactors { key role component text leadsTo { kind to { key } } followsFrom { kind from { key } } citedBy { nodes { runbook { url title } } } }
            actionables { key title description status owner ownedBy { kind name } dueDate references { kind ref url } addresses { key } citedBy { nodes { runbook { url title } } } }
            citedBy { nodes { runbook { url title } } }
            model { key }
            related { score incident { slug title organization } reasons { kind detail weight } }
          } }`,
          { slug },
        ),
      );
    const big = await page(CHANGEPROP);
    const small = await page('stackegg-haproxy-session-cap-2015');
    expect(big).toBe(small);
    expect(big).toBeLessThanOrEqual(await graphql(CHANGEPROP));
  });
});

describe('incident page narrative from a hostile document', () => {
  let t: TestApp;
  const PAYLOAD = [
    '## Injected',
    '',
    '<script>window.__xss = "script"; alert("script")</script>',
    '',
    '<img src="x" onerror="window.__xss = \'img\'; alert(\'img\')">',
    '',
    '[markdown link](javascript:alert("md-link")) and [data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '',
    '<a href="javascript:alert(\'a-tag\')">anchor tag</a> <a href=" JaVaScRiPt:alert(1)">spaced</a>',
    '',
    '<svg onload="window.__xss = \'svg\'; alert(\'svg\')"><circle r="4"/></svg>',
    '',
    '<iframe src="javascript:alert(\'iframe\')"></iframe><p style="color:red" onclick="alert(1)">styled</p>',
    '',
    'Plain **bold** text and a [real link](https://example.org/postmortem) survive.',
  ].join('\n');

  beforeAll(async () => {
    t = await startTestApp();
    const prisma = testPrisma(t.db.url);
    try {
      const incident = await prisma.incident.update({
        where: { slug: CHANGEPROP },
        data: { narrative: PAYLOAD, title: 'Loop <script>alert("title")</script> & co', impact: '<img src=x onerror=alert(1)>' },
      });
      await prisma.causalFactor.updateMany({ where: { incidentId: incident.id, key: 'changeprop-retries-on-500' }, data: { component: '"><script>alert("factor")</script>', text: '<b onmouseover="alert(1)">hover</b>' } });
      await prisma.externalReference.updateMany({ where: { ref: 'T134456' }, data: { url: 'javascript:alert("tracker")' } });
    } finally {
      await prisma.onModuleDestroy();
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('keeps no script, event handler, javascript: or data: URL, and escapes every plain field', async () => {
    const res = await request(t.app.getHttpServer()).get(`/incidents/${CHANGEPROP}`);
    expect(res.status).toBe(200);
    const all = elements(res.text);
    expect(all.filter((e) => e.tag === 'script').map((e) => e.attrs.src)).toEqual(['/assets/pages.js']);
    expect(all.filter((e) => ['iframe', 'img', 'object', 'embed'].includes(e.tag))).toEqual([]);
    expect(all.flatMap((e) => Object.keys(e.attrs)).filter((name) => name.startsWith('on') || name === 'style')).toEqual([]);
    const urls = all.flatMap((e) => [e.attrs.href, e.attrs.src, e.attrs.action].filter((v): v is string => v !== undefined));
    // (`data:,` is the page's own empty favicon, which keeps browsers from asking for one.)
    expect(urls.filter((u) => /^\s*(javascript|data|vbscript):/i.test(u) && u !== 'data:,')).toEqual([]);
    // The narrative's only SVG-free content is text; the page's own graph SVG sits elsewhere.
    const narrative = sectionById(res.text, 'narrative');
    expect(narrative).not.toMatch(/<svg|<script|<iframe/i);
    expect(textOf(narrative)).toContain('Plain bold text and a real link survive.');
    expect(elements(narrative).find((e) => e.tag === 'a' && e.attrs.href === 'https://example.org/postmortem')?.attrs.rel).toBe('nofollow noopener noreferrer');
    // Plain fields are shown as the text they are.
    expect(res.text).toContain('Loop &lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; &amp; co');
    expect(textOf(sectionById(res.text, 'factor-changeprop-retries-on-500'))).toContain('<b onmouseover="alert(1)">hover</b>');
    // A tracker reference with a script URL is shown but not linked.
    const bound = sectionById(res.text, 'actionable-changeprop-bound-processing-concurrency');
    expect(textOf(bound)).toContain('T134456');
    expect(elements(bound).some((e) => e.tag === 'a' && e.attrs.href?.includes('alert'))).toBe(false);
  });
});

describe('the model panel seam', () => {
  let db: TestDatabase;
  let app: INestApplication;
  const seen: ModelPanelRequest[] = [];
  let fail = false;
  const panel: IncidentModelPanel = {
    async render(req) {
      seen.push(req);
      if (fail) throw new Error('model engine unavailable');
      return {
        html: `<form class="what-if" method="post"><p class="panel-probe">rate=${req.form?.arrivalRate ?? 'default'}</p></form>`,
        verdicts: [{ actionableKey: 'restbase-no-cache-control-forwarding', outcome: 'DELAYED', reason: 'Delayed by <b>60 s</b>.', scenarioTitle: 'No forwarding' }],
      };
    },
  };

  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    const module = await Test.createTestingModule({ imports: [AppModule.forRoot(loadConfig({ DATABASE_URL: db.url }), db.url)] })
      .overrideProvider(INCIDENT_MODEL_PANEL)
      .useValue(panel)
      .compile();
    app = module.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });

  it('renders the bound panel inside the Model aside, with the incident it is for', async () => {
    const res = await request(app.getHttpServer()).get(`/incidents/${CHANGEPROP}`);
    expect(res.status).toBe(200);
    expect(sectionById(res.text, 'model')).toContain('<p class="panel-probe">rate=default</p>');
    const last = seen[seen.length - 1]!;
    expect(last).toMatchObject({ slug: CHANGEPROP, form: null });
    expect(last.incidentId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("shows the panel's verdict beside the actionable it is about, escaped, and nowhere else", async () => {
    const res = await request(app.getHttpServer()).get(`/incidents/${CHANGEPROP}`);
    const item = sectionById(res.text, 'actionable-restbase-no-cache-control-forwarding');
    expect(item).toContain('data-verdict="DELAYED"');
    expect(textOf(item)).toMatch(/Model only delays the failure \(scenario “No forwarding”; see the model ?\)\./);
    expect(item).toContain('Delayed by &lt;b&gt;60 s&lt;/b&gt;.');
    expect(sectionById(res.text, 'actionable-restbase-content-req-pinned-to-revision')).not.toContain('data-verdict');
  });

  it('hands a what-if submitted without JavaScript to the panel and re-renders the whole page', async () => {
    const res = await request(app.getHttpServer()).get(`/incidents/${CHANGEPROP}?arrivalRate=12&retries=3&retries=4`);
    expect(res.status).toBe(200);
    expect(sectionById(res.text, 'model')).toContain('rate=12');
    expect(seen[seen.length - 1]!.form).toEqual({ arrivalRate: '12', retries: '3' });
    expect(res.text).toContain('id="timeline"');
  });

  it('keeps the page up when the panel fails', async () => {
    fail = true;
    try {
      const res = await request(app.getHttpServer()).get(`/incidents/${CHANGEPROP}`);
      expect(res.status).toBe(200);
      expect(textOf(sectionById(res.text, 'model'))).toContain('The model could not be shown just now.');
      expect(res.text).toContain('id="actionables"');
    } finally {
      fail = false;
    }
  });
});

describe('pages when reading needs a token', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_READ: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends the reader to the sign-in page, and still serves the stylesheet that page uses', async () => {
    const page = await request(t.app.getHttpServer()).get(`/incidents/${CHANGEPROP}`);
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe(`/sign-in?next=${encodeURIComponent(`/incidents/${CHANGEPROP}`)}`);
    expect(page.text).not.toContain('id="narrative"');
    const signIn = await request(t.app.getHttpServer()).get(page.headers.location!);
    expect(signIn.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(textOf(signIn.text)).toContain('Sign in');
    expect((await request(t.app.getHttpServer()).get('/incidents')).status).toBe(303);
    const css = await request(t.app.getHttpServer()).get('/assets/pages.css');
    expect(css.status).toBe(200);
  });
});
