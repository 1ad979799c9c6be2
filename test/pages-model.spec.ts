import fs from 'node:fs';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles, writeIncidentDocument } from '@hindsight/incidents';
import { MODEL_EXECUTOR } from '@hindsight/model-runs';
import { ModelError, ModelErrorCode, type ModelSpec } from '@hindsight/models';
import { AppModule } from '../apps/api/src/app.module';
import { loadConfig } from '../apps/api/src/config/app-config';
import { decodeEntities, elements, sectionById, textOf } from './support/html-inspect';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';
import { createTestDatabase, type TestDatabase } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const SPEC = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'seeds', 'models', `${STACKEGG}.model.json`), 'utf8')) as ModelSpec;
const SEEDS = readSeedFiles(path.join(projectRoot(), 'seeds')).incidents;

/** Every form control has a label pointing at it. */
function unlabelledControls(html: string): string[] {
  const all = elements(html);
  const labelled = new Set(all.filter((e) => e.tag === 'label').map((e) => e.attrs.for));
  return all
    .filter((e) => (e.tag === 'input' && e.attrs.type !== 'hidden') || e.tag === 'select' || e.tag === 'textarea')
    .filter((e) => !e.attrs.id || !labelled.has(e.attrs.id))
    .map((e) => e.attrs.name ?? e.tag);
}

/** The figures table as rows of cell texts keyed by scenario, then by figure name. */
function figureTable(panel: string): Map<string, Map<string, string>> {
  const table = panel.slice(panel.indexOf('<table class="model-figures"'), panel.indexOf('</table>'));
  const rows = new Map<string, Map<string, string>>();
  for (const row of table.matchAll(/<tr data-scenario="([^"]+)">([\s\S]*?)<\/tr>/g)) {
    const cells = new Map([...row[2]!.matchAll(/<td data-figure="([^"]+)">([\s\S]*?)<\/td>/g)].map((c) => [c[1]!, textOf(c[2]!)]));
    rows.set(row[1]!, cells);
  }
  return rows;
}

describe('the model panel of an incident page', () => {
  let t: TestApp;
  let prisma: PrismaService;
  beforeAll(async () => {
    t = await startTestApp();
    await attachSeedModels(t.app);
    prisma = t.app.get(PrismaService);
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string) => request(t.app.getHttpServer()).get(url);
  const runCount = () => prisma.modelRun.count();

  it('draws the run as it happened against every scenario, with axes, units, legend and event markers', async () => {
    const res = await get(`/incidents/${STACKEGG}`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(textOf(panel)).toContain(SPEC.title);
    const headings = elements(panel).filter((e) => /^h[34]$/.test(e.tag)).map((e) => e.tag);
    expect(headings.filter((h) => h === 'h3').length).toBeGreaterThanOrEqual(5);

    const charts = [...panel.matchAll(/<figure class="model-chart"[\s\S]*?<\/figure>/g)].map((m) => m[0]);
    expect(charts.length).toBeGreaterThanOrEqual(1);
    expect(charts.length).toBeLessThanOrEqual(4);
    const titles = SPEC.scenarios.map((s) => s.title);
    for (const chart of charts) {
      const svg = chart.slice(chart.indexOf('<svg'), chart.indexOf('</svg>'));
      // Time axis in clock time (the model has a time origin), value axis with the probe's unit.
      expect(textOf(sectionOf(svg, 'x-title'))).toBe('Time, UTC (2015-03-31)');
      expect(textOf(sectionOf(svg, 'y-title'))).not.toBe('');
      expect(svg).toMatch(/<title id="[^"]+-title">/);
      expect(svg).toMatch(/<desc id="[^"]+-desc">/);
      // A legend entry per scenario, named by its title.
      const legend = chart.slice(chart.indexOf('<ul class="chart-legend"'), chart.indexOf('</ul>'));
      expect([...legend.matchAll(/<li[^>]* data-line="[^"]+">[\s\S]*?<span>([^<]*?)\s*(?:<span class="legend-note">|<\/span>)/g)].map((m) => decodeEntities(m[1]!))).toEqual(titles);
      // The trigger and the intervention, marked on the time axis and said in words.
      // A badge may stand for several neighbouring events: its data-event lists their keys.
      expect(elements(svg).filter((e) => e.tag === 'g' && e.attrs['data-event']).flatMap((e) => e.attrs['data-event']!.split(' '))).toEqual(
        expect.arrayContaining(['stackegg-off']),
      );
      expect(textOf(chart)).toContain('13:46:13 UTC: StackEgg turned off');
      // The text summary: each scenario's peak and when.
      const summary = textOf(chart.slice(chart.indexOf('<div class="chart-summary"')));
      for (const title of titles) expect(summary).toContain(`${title}:`);
      expect(summary).toMatch(/peaks at [\d,.]+ \S+ at \d\d:\d\d:\d\d UTC/);
    }
    const sessions = charts.find((c) => c.includes('id="model-chart-sessions"'))!;
    expect(textOf(sectionOf(sessions, 'y-title'))).toBe('sessions');
    // Lines for the runs, the first solid, the others dashed.
    const lines = elements(sessions).filter((e) => e.tag === 'path' && e.attrs['stroke-linejoin'] === 'round');
    expect(lines).toHaveLength(SPEC.scenarios.length);
    expect(lines.filter((l) => !l.attrs['stroke-dasharray'])).toHaveLength(1);
  });

  it('shows beside each actionable and each fix the verdict its run supports, with the reason, and how many checks are evidence', async () => {
    const res = await get(`/incidents/${STACKEGG}`);
    const embed = sectionById(res.text, 'actionable-embed-initial-game-state-in-page');
    expect(embed).toContain('data-verdict="NOT_PREVENTED"');
    expect(textOf(embed)).toContain('Model would not have prevented the failure');
    expect(textOf(embed)).toMatch(/Not prevented: the failure criterion \(fewer than 90 % of page connections succeed for at least 30 s\) is met as early/);
    expect(sectionById(res.text, 'actionable-raise-haproxy-session-limit')).toContain('data-verdict="PREVENTED"');
    // Follow-ups the model cannot express get no verdict.
    expect(sectionById(res.text, 'actionable-watch-datacenter-performance')).not.toContain('data-verdict');

    const panel = sectionById(res.text, 'model');
    expect(textOf(sectionOfAttr(panel, 'data-scenario', 'fewer-stackegg-requests'))).toContain('Verdict: Not prevented');
    expect(textOf(sectionOfAttr(panel, 'data-scenario', 'lower-keep-alive'))).toContain('Verdict: Prevented');
    expect(textOf(panel)).toContain('Failure criterion: fewer than 90 % of page connections succeed for at least 30 s.');
    expect(textOf(panel)).toContain('Evidence: 2 checks reproduce a figure of the source the model was not fitted to; the other checks are 3 fitted, 7 by construction');
    expect(panel).toContain('<tr data-parameter="otherRequestRate" data-provenance="derived">');
    expect(textOf(panel)).toContain('6,608 − 3,444 = 3,164 req/s');
  });

  it('tabulates the summary figures per scenario with units, and lists every check as passing or failing', async () => {
    const panel = sectionById((await get(`/incidents/${STACKEGG}`)).text, 'model');
    const table = figureTable(panel);
    expect([...table.keys()]).toEqual(SPEC.scenarios.map((s) => s.key));
    const asHappened = table.get('as-happened')!;
    expect([...asHappened.keys()]).toEqual(SPEC.figures!.map((f) => f.name));
    expect(asHappened.get('peak-sessions')).toMatch(/^[\d,]+$/);
    // Units in the column headings; ratios as percentages.
    const head = textOf(panel.slice(panel.indexOf('<thead>'), panel.indexOf('</thead>')));
    for (const f of SPEC.figures!) expect(head).toContain(`${f.label} (${f.unit === 'ratio' ? '%' : f.unit})`);

    // Every check evaluated on every run is listed, with its verdict in a symbol and in words.
    const runs = await prisma.modelRun.findMany({ where: { incident: { slug: STACKEGG }, parameters: { equals: {} } } });
    const stored = runs.flatMap((r) => (r.checks as { name: string; pass: boolean }[] | null) ?? []);
    const items = elements(panel).filter((e) => e.tag === 'li' && e.attrs.class?.startsWith('model-check '));
    expect(items).toHaveLength(stored.length);
    expect(items.length).toBeGreaterThan(0);
    const failing = stored.filter((c) => !c.pass).length;
    expect(items.filter((i) => i.attrs.class!.includes('check-fail'))).toHaveLength(failing);
    const checks = textOf(panel.slice(panel.indexOf('<ul class="model-checks"')));
    expect(checks.match(/✓ passes:/g)?.length ?? 0).toBe(stored.length - failing);
    expect(checks.match(/✗ fails:/g)?.length ?? 0).toBe(failing);
    expect(textOf(panel)).toContain(`${stored.length - failing} of ${stored.length} checks pass`);
    expect(checks).toContain('Expected ≈ 51,660');
    expect(checks).toMatch(/Observed [\d,.]+ sessions/);
  });

  it('names each fix scenario and links it to its actionable on the page', async () => {
    const html = (await get(`/incidents/${STACKEGG}`)).text;
    const panel = sectionById(html, 'model');
    const actionables = new Map(SEEDS.find((s) => s.slug === STACKEGG)!.actionables.map((a) => [a.key, a.title]));
    for (const scenario of SPEC.scenarios.filter((s) => s.actionableKey)) {
      const item = sectionOfAttr(panel, 'data-scenario', scenario.key);
      expect(textOf(item)).toContain(scenario.title);
      const title = actionables.get(scenario.actionableKey!);
      if (title) {
        const link = elements(item).find((e) => e.tag === 'a' && e.attrs.href === `#actionable-${scenario.actionableKey}`);
        expect(link).toBeDefined();
        expect(textOf(item)).toContain(title);
        expect(html).toContain(`id="actionable-${scenario.actionableKey}"`);
      } else {
        // A scenario naming an actionable the incident does not have says so instead of linking nowhere.
        expect(textOf(item)).toMatch(new RegExp(`Models the follow-up ${scenario.actionableKey} ?, which this incident does not list`));
        expect(elements(item).some((e) => e.tag === 'a')).toBe(false);
      }
    }
  });

  it('makes each default run once and answers later views from storage', async () => {
    await get(`/incidents/${STACKEGG}`).expect(200);
    const before = await runCount();
    expect(before).toBeGreaterThanOrEqual(SPEC.scenarios.length);
    await get(`/incidents/${STACKEGG}`).expect(200);
    expect(await runCount()).toBe(before);
  });

  it('offers a labelled what-if form: GET to the page, each parameter with unit, range, step, default and hint', async () => {
    const panel = sectionById((await get(`/incidents/${STACKEGG}`)).text, 'model');
    const form = elements(panel).find((e) => e.tag === 'form')!;
    expect(form.attrs).toMatchObject({ class: 'what-if', method: 'get', action: `/incidents/${STACKEGG}#model` });
    expect(unlabelledControls(panel)).toEqual([]);
    for (const p of SPEC.parameters) {
      const input = elements(panel).find((e) => e.tag === 'input' && e.attrs.name === `p.${p.name}`)!;
      const label = textOf(sectionOfAttr(panel, 'for', input.attrs.id!));
      // The label the model gives the parameter, not its name.
      expect(label).toContain((p as { label?: string }).label);
      if (p.unit === 'on/off') {
        // An on/off parameter is a checkbox, ticked when on; a hidden field after it sends 0 when it is not.
        expect(input.attrs).toMatchObject({ type: 'checkbox', value: '1' });
        expect('checked' in input.attrs).toBe(p.default === 1);
        expect(elements(panel).filter((e) => e.tag === 'input' && e.attrs.name === `p.${p.name}`).map((e) => e.attrs.type)).toEqual(['checkbox', 'hidden']);
      } else {
        expect(input.attrs).toMatchObject({ type: 'number', min: String(p.min), max: String(p.max), value: String(p.default), step: p.integer ? '1' : 'any' });
        if (p.unit) expect(label).toContain(`(${p.unit})`);
      }
      const hint = sectionById(panel, input.attrs['aria-describedby']!.split(' ')[0]!);
      expect(textOf(hint)).toContain(p.description);
    }
    expect(textOf(panel)).toContain('Reset to the defaults');
  });

  it('accepts the same what-if as a plain form POST, without a token, like the GET', async () => {
    const res = await request(t.app.getHttpServer())
      .post(`/incidents/${STACKEGG}`)
      .type('form')
      .send({ 'p.stackEggRate': '1200', 'p.keepAliveSeconds': '10' })
      .expect(200);
    expect(textOf(sectionById(res.text, 'model'))).toContain('What-if: these runs use your values');
  });

  it('re-runs every scenario with changed values from a plain GET and draws different figures, saying they are what-if values', async () => {
    const defaults = figureTable(sectionById((await get(`/incidents/${STACKEGG}`)).text, 'model'));
    const before = await runCount();
    const res = await get(`/incidents/${STACKEGG}?p.stackEggRate=1000&p.keepAliveSeconds=10`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(textOf(panel)).toContain('What-if: these runs use your values, not the incident’s: StackEgg requests 1,000 req/s (default 3,444 req/s)');
    expect(panel).toContain(`<a href="/incidents/${STACKEGG}#model">Back to the default values</a>`);
    const whatIf = figureTable(panel);
    expect(whatIf.get('as-happened')!.get('stackegg-demand')).toBe('10,010');
    expect(whatIf.get('as-happened')!.get('stackegg-demand')).not.toBe(defaults.get('as-happened')!.get('stackegg-demand'));
    expect(whatIf.get('as-happened')!.get('peak-sessions')).not.toBe(defaults.get('as-happened')!.get('peak-sessions'));
    // A fix that sets the parameter itself keeps its own value, and says so.
    expect(textOf(sectionOfAttr(panel, 'data-scenario', 'fewer-stackegg-requests'))).toContain('Keeps its own StackEgg requests = 1,400 req/s (you asked for 1,000 req/s)');
    expect(whatIf.get('fewer-stackegg-requests')!.get('stackegg-demand')).not.toBe(defaults.get('fewer-stackegg-requests')!.get('stackegg-demand'));
    expect(whatIf.get('fewer-stackegg-requests')!.get('stackegg-demand')).toBe('14,014');
    // The form shows the values that were run.
    const rate = elements(panel).find((e) => e.tag === 'input' && e.attrs.name === 'p.stackEggRate')!;
    expect(rate.attrs.value).toBe('1000');
    // At most one run per scenario, through the cache: asking again runs nothing new.
    const after = await runCount();
    expect(after - before).toBeGreaterThan(0);
    expect(after - before).toBeLessThanOrEqual(SPEC.scenarios.length);
    await get(`/incidents/${STACKEGG}?p.keepAliveSeconds=10&p.stackEggRate=1000`).expect(200);
    expect(await runCount()).toBe(after);
  });

  it('draws only the chosen scenario beside the run as it happened', async () => {
    const panel = sectionById((await get(`/incidents/${STACKEGG}?scenario=lower-keep-alive`)).text, 'model');
    expect([...figureTable(panel).keys()]).toEqual(['as-happened', 'lower-keep-alive']);
    const select = elements(panel).find((e) => e.tag === 'select' && e.attrs.name === 'scenario')!;
    expect(select.attrs.id).toBe('what-if-scenario');
    expect(panel).toContain('<option value="lower-keep-alive" selected>');
  });

  it('says on a single fix run which what-if values the fix kept its own value for', async () => {
    const panel = sectionById((await get(`/incidents/${STACKEGG}?scenario=lower-keep-alive&p.keepAliveSeconds=20`)).text, 'model');
    const table = figureTable(panel);
    expect([...table.keys()]).toEqual(['as-happened', 'lower-keep-alive']);
    const fix = textOf(sectionOfAttr(panel, 'data-scenario', 'lower-keep-alive'));
    expect(fix).toMatch(/Keeps its own [^=]+ = 5 s \(you asked for 20 s\)/);
    // The fix ran at its own 5 s; the run as it happened at the 20 s asked for.
    expect(table.get('lower-keep-alive')!.get('stackegg-demand')).toBe('17,254');
    expect(table.get('as-happened')!.get('stackegg-demand')).toBe('68,914');
    expect(textOf(sectionOfAttr(panel, 'data-scenario', 'as-happened'))).not.toContain('Keeps its own');
  });

  it('refuses an out-of-range value next to its field and runs nothing', async () => {
    await get(`/incidents/${STACKEGG}`).expect(200);
    const before = await runCount();
    const res = await get(`/incidents/${STACKEGG}?p.keepAliveSeconds=500&p.sessionCap=2.5&p.stackEggRate=2000`);
    expect(res.status).toBe(200);
    expect(await runCount()).toBe(before);
    const panel = sectionById(res.text, 'model');
    const keepAlive = elements(panel).find((e) => e.tag === 'input' && e.attrs.name === 'p.keepAliveSeconds')!;
    expect(keepAlive.attrs['aria-invalid']).toBe('true');
    expect(keepAlive.attrs.value).toBe('500');
    expect(keepAlive.attrs['aria-describedby']).toBe('what-if-keepAliveSeconds-hint what-if-keepAliveSeconds-error');
    expect(textOf(sectionById(panel, 'what-if-keepAliveSeconds-error'))).toBe('500 is out of range. Enter a number from 0 to 120 s.');
    // The error sits right after its own field, not in a list elsewhere.
    const field = panel.slice(panel.indexOf('id="what-if-keepAliveSeconds"'));
    expect(field.indexOf('id="what-if-keepAliveSeconds-error"')).toBeGreaterThan(0);
    expect(field.indexOf('id="what-if-keepAliveSeconds-error"')).toBeLessThan(field.indexOf('<input'));
    expect(textOf(sectionById(panel, 'what-if-sessionCap-error'))).toBe('2.5 is not a whole number. Enter a whole number from 1 to 1,000,000 sessions.');
    expect(elements(panel).find((e) => e.attrs.name === 'p.stackEggRate')!.attrs['aria-invalid']).toBeUndefined();
    expect(textOf(panel)).toContain('Your values were not run: 2 fields need a different value');
    // The default runs stay in view rather than a blank panel.
    expect(figureTable(panel).get('as-happened')!.get('peak-sessions')).toMatch(/^[\d,]+$/);
    expect(textOf(panel)).not.toContain('What-if: these runs use your values');
  });

  it('serves the panel alone for the page script, with the page headers and without a token', async () => {
    const res = await get(`/incidents/${STACKEGG}/model?p.stackEggRate=1000`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.text).not.toContain('<html');
    expect(res.text).toContain('id="model-body"');
    expect(res.text).toContain('data-mode="what-if"');
    // The same markup the page puts in its aside.
    const page = sectionById((await get(`/incidents/${STACKEGG}?p.stackEggRate=1000`)).text, 'model-body');
    expect(sectionById(res.text, 'model-body')).toBe(page);
    expect((await get('/incidents/no-such-incident/model')).status).toBe(404);
    // An old slug leads to the panel under the current one, what-if included.
    const incident = await prisma.incident.findUniqueOrThrow({ where: { slug: STACKEGG } });
    await prisma.incidentSlugAlias.create({ data: { slug: 'stackegg-2015', incidentId: incident.id } });
    const moved = await get('/incidents/stackegg-2015/model?p.stackEggRate=1000');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(`/incidents/${STACKEGG}/model?p.stackEggRate=1000`);
    const refused = await get(`/incidents/${STACKEGG}/model?p.keepAliveSeconds=abc`);
    expect(refused.status).toBe(200);
    expect(refused.text).toContain('data-mode="refused"');
    expect(decodeEntities(elements(refused.text).find((e) => e.attrs.id === 'model-body')!.attrs['data-announce']!)).toContain('“abc” is not a number');
  });

  it('keeps the panel free of inline script, style and event handlers', async () => {
    const panel = sectionById((await get(`/incidents/${STACKEGG}?p.stackEggRate=1000`)).text, 'model');
    const all = elements(panel);
    expect(all.filter((e) => e.tag === 'script' || e.tag === 'style' || 'style' in e.attrs)).toEqual([]);
    expect(all.flatMap((e) => Object.keys(e.attrs)).filter((name) => name.startsWith('on'))).toEqual([]);
    const ids = all.map((e) => e.attrs.id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('says plainly when an incident has no model', async () => {
    const apache = SEEDS.find((s) => s.slug === 'apache-outbound-calls-without-timeouts-2011')!;
    await prisma.$transaction((tx) => writeIncidentDocument(tx, { ...apache, slug: 'modelless-incident', title: 'Modelless incident' }, { status: 'published' }));
    const res = await get('/incidents/modelless-incident?p.keepAliveSeconds=5');
    expect(res.status).toBe(200);
    expect(textOf(sectionById(res.text, 'model'))).toBe('Model No model is attached to this incident yet.');
    expect((await get('/incidents/modelless-incident/model')).text).toBe('<p class="model-empty">No model is attached to this incident yet.</p>');
  });
});

describe('the model panel when every model worker is busy', () => {
  let db: TestDatabase;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    // The executor's contract when saturated: refuse at once with QUEUE_FULL.
    const saturated = {
      async execute(): Promise<never> {
        throw new ModelError(ModelErrorCode.QueueFull, 'queue full');
      },
      async close() {},
    };
    const module = await Test.createTestingModule({ imports: [AppModule.forRoot(loadConfig({ DATABASE_URL: db.url }), db.url)] })
      .overrideProvider(MODEL_EXECUTOR)
      .useValue(saturated)
      .compile();
    app = module.createNestApplication({ logger: false });
    await app.init();
    await attachSeedModels(app);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('says so in words instead of failing the page, and leaves no half-made runs behind', async () => {
    for (const url of [`/incidents/${STACKEGG}`, `/incidents/${STACKEGG}?p.stackEggRate=1000`]) {
      const res = await request(app.getHttpServer()).get(url);
      expect(res.status).toBe(200);
      const panel = sectionById(res.text, 'model');
      expect(textOf(panel)).toContain('Every model worker is busy just now');
      expect(textOf(panel)).toContain('Not run: every model worker was busy; try again in a moment.');
      expect(res.text).toContain('id="actionables"');
    }
    expect(await app.get(PrismaService).modelRun.count()).toBe(0);
  });
});

/** The element with this attribute value, up to its matching close tag. */
function sectionOfAttr(html: string, attr: string, value: string): string {
  const at = html.indexOf(`${attr}="${value}"`);
  if (at < 0) throw new Error(`no element with ${attr}="${value}"`);
  const start = html.lastIndexOf('<', at);
  const tag = /^<([a-z0-9]+)/.exec(html.slice(start))![1]!;
  const re = new RegExp(`<(/?)${tag}\\b[^>]*>`, 'g');
  re.lastIndex = start;
  let depth = 0;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (!m[1] && m[0].endsWith('/>')) continue;
    depth += m[1] ? -1 : 1;
    if (depth === 0) return html.slice(start, m.index + m[0].length);
  }
  throw new Error(`element with ${attr}="${value}" is not closed`);
}

/** The first element carrying this class. */
function sectionOf(html: string, className: string): string {
  const m = new RegExp(`<([a-z]+)[^>]*class="[^"]*\\b${className}\\b[^"]*"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  if (!m) throw new Error(`no element with class ${className}`);
  return m[0];
}
