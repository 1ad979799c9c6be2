import request from 'supertest';
import { PrismaService } from '@hindsight/db';
import { elements, sectionById, textOf } from './support/html-inspect';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';

const APACHE = 'apache-outbound-calls-without-timeouts-2011';
const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const SLACK = 'slack-cache-metastability-2022';

describe('ensembles and sweeps on the model panel', () => {
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

  it('draws the 10th–90th percentile of a seed ensemble around the run as it happened and says how often the failure criterion is met', async () => {
    const res = await get(`/incidents/${APACHE}?seeds=3&scenario=outbound-timeouts`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(textOf(panel)).toMatch(/Over 3 seeds: The failure criterion \(fewer than half of page requests succeed for at least 30 s\) is met in \d of 3 runs, \d+ %/);
    expect(panel).toContain('class="chart-band" data-line="as-happened"');
    expect(panel).toContain('10th to 90th percentile of 3 runs');
    // One stored run per seed of the as-happened scenario.
    const runs = await prisma.modelRun.findMany({ where: { scenarioKey: 'as-happened', incident: { slug: APACHE } }, select: { seed: true } });
    expect(new Set(runs.map((r) => r.seed))).toEqual(new Set([1, 2, 3]));
  });

  it('charts a sweep of one parameter with the failure criterion at each value, in words', async () => {
    const res = await get(`/incidents/${STACKEGG}?sweep=keepAliveSeconds:5:15:3&scenario=lower-keep-alive`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(panel).toContain('<figure class="sweep-chart" id="model-sweep">');
    const text = textOf(panel);
    expect(text).toContain('Between keepAliveSeconds = 5 s and keepAliveSeconds = 10 s it starts being met.');
    expect(text).toContain('keepAliveSeconds = 15 s:');
    const field = elements(panel).find((e) => e.tag === 'input' && e.attrs.name === 'sweep')!;
    expect(field.attrs.value).toBe('keepAliveSeconds:5:15:3');
  });

  it('finds where along a parameter the failure criterion flips and says it in words beside the probes', async () => {
    const res = await get(`/incidents/${STACKEGG}?boundary=keepAliveSeconds:5:10&scenario=lower-keep-alive`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(panel).toContain('<figure class="sweep-chart" id="model-boundary">');
    expect(textOf(panel)).toMatch(/Below keepAliveSeconds = [\d.]+ s the failure criterion \(fewer than 90 % of page connections succeed for at least 30 s\) is never met; from [\d.]+ s on it is met/);
  });

  it('shows a sweep of two parameters as a table of the failure criterion per run, in words', async () => {
    const res = await get(`/incidents/${STACKEGG}?sweep=keepAliveSeconds:5:15:3&sweep2=stackEggRate:1000:3444:2`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(textOf(sectionById(panel, 'model-grid-heading'))).toContain('over HTTP keep-alive and');
    const grid = panel.slice(panel.indexOf('<table class="sweep-grid">'), panel.indexOf('</table>', panel.indexOf('<table class="sweep-grid">')));
    // Columns are the keep-alive values, rows the request rates; every cell says met or not met.
    const cell = (x: number, y: number) => textOf(new RegExp(`<td[^>]*data-x="${x}" data-y="${y}">([\\s\\S]*?)</td>`).exec(grid)![1]!);
    expect(cell(5, 3444)).toContain('not met');
    expect(cell(10, 3444)).toMatch(/● met from /);
    expect(cell(15, 3444)).toMatch(/● met from /);
    // At 1,000 StackEgg requests per second only the 15 s keep-alive still reaches the session cap.
    expect(cell(5, 1000)).toContain('○ not met');
    expect(cell(10, 1000)).toContain('○ not met');
    expect(cell(15, 1000)).toMatch(/● met from /);
    expect(cell(10, 3444)).toContain('keepAliveSeconds = 10 s, stackEggRate = 3,444 req/s:');
    expect(grid.match(/<th scope="col">/g)).toHaveLength(4);
    expect(grid.match(/<th scope="row">/g)).toHaveLength(2);
    expect(textOf(panel)).toContain('The failure criterion (fewer than 90 % of page connections succeed for at least 30 s) is met at 3 of 6 points.');
    // No one-parameter chart is drawn for a grid; the fields show what was asked.
    expect(panel).not.toContain('id="model-sweep"');
    const second = elements(panel).find((e) => e.tag === 'input' && e.attrs.name === 'sweep2')!;
    expect(second.attrs.value).toBe('stackEggRate:1000:3444:2');
  });

  it('refuses a grid over the same parameter twice, without a first axis, or of too many runs', async () => {
    const before = await prisma.modelRun.count();
    const same = textOf(sectionById((await get(`/incidents/${STACKEGG}?sweep=keepAliveSeconds:5:15:3&sweep2=keepAliveSeconds:5:15:3`)).text, 'model'));
    expect(same).toContain('Choose another parameter than keepAliveSeconds for the second axis.');
    const alone = textOf(sectionById((await get(`/incidents/${STACKEGG}?sweep2=stackEggRate:1000:3444:2`)).text, 'model'));
    expect(alone).toContain('Give the first parameter of the sweep too: a grid needs both.');
    const big = textOf(sectionById((await get(`/incidents/${STACKEGG}?sweep=keepAliveSeconds:5:15:12&sweep2=stackEggRate:1000:3444:4`)).text, 'model'));
    expect(big).toContain('A grid of 12 × 4 values is 48 runs; a page makes at most 36.');
    expect(await prisma.modelRun.count()).toBe(before);
  });

  it('bisects on a chosen check instead of the failure criterion: how far the first throttle relaxation may go', async () => {
    const res = await get(`/incidents/${SLACK}?boundary=firstRelaxAdmit:0.3:1&boundary-check=relaxing-too-fast-relapses`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(panel).toContain('<figure class="sweep-chart" id="model-boundary">');
    const text = textOf(panel);
    expect(text).toContain('Where the check flips along firstRelaxAdmit');
    expect(text).toMatch(/Below firstRelaxAdmit = [\d.]+ % the check "relaxing-too-fast-relapses" .* fails; from [\d.]+ % on it passes/);
    const select = elements(panel).find((e) => e.tag === 'select' && e.attrs.name === 'boundary-check')!;
    expect(select.attrs.id).toBe('what-if-boundary-check');
    expect(panel).toContain('<option value="relaxing-too-fast-relapses" selected>');
    // A check of another scenario is not offered, and naming one is refused next to the field.
    expect(panel).not.toContain('<option value="off-peak-step-harmless"');
    const refused = sectionById((await get(`/incidents/${SLACK}?boundary=firstRelaxAdmit:0.3:1&boundary-check=off-peak-step-harmless`)).text, 'model');
    expect(textOf(refused)).toContain('Choose the failure criterion or one of the listed checks.');
    expect(refused).not.toContain('id="model-boundary"');
  });

  it('bisects on a figure crossing a value, charting the figure against the parameter', async () => {
    const res = await get(`/incidents/${STACKEGG}?boundary=keepAliveSeconds:5:15&boundary-figure=stackegg-demand:above:40000`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(panel).toContain('<figure class="sweep-chart" id="model-boundary">');
    const text = textOf(panel);
    expect(text).toContain('Where StackEgg demand: request rate × keep-alive crosses 40,000 sessions along keepAliveSeconds');
    expect(text).toMatch(/Below keepAliveSeconds = 11\.\d+ s the figure "stackegg-demand" .* is not above 40,000 sessions; from 1[12]\.\d+ s on it is above 40,000 sessions/);
    const input = elements(panel).find((e) => e.tag === 'input' && e.attrs.name === 'boundary-figure')!;
    expect(input.attrs.id).toBe('what-if-boundary-figure');
    expect(input.attrs.value).toBe('stackegg-demand:above:40000');
    expect(input.attrs['data-default']).toBe('');
    // The value searched for is a dashed line across the chart, named in the legend.
    expect(panel).toMatch(/<g class="sweep-reference"><line [^>]*stroke-dasharray="4 3"><title>above 40,000 sessions: the value searched for<\/title>/);
    expect(text).toContain('- - above 40,000 sessions: the value searched for');
  });

  it('gives an example figure target that fits the model’s first figure', async () => {
    const hint = async (slug: string) => textOf(sectionById((await get(`/incidents/${slug}`)).text, 'model')).match(/figure:above:value or figure:below:value, e\.g\. (\S+),/)?.[1];
    // Slack's first figure is a ratio (a share), StackEgg's a count of sessions.
    expect(await hint(SLACK)).toBe('worst-hit-ratio:above:0.5');
    expect(await hint(STACKEGG)).toBe('peak-sessions:above:100');
  });

  it('refuses an unknown or malformed figure, a figure with a check, or a figure without a search, next to the field, and runs nothing', async () => {
    const before = await prisma.modelRun.count();
    const refusal = async (query: string) => {
      const panel = sectionById((await get(`/incidents/${STACKEGG}?${query}`)).text, 'model');
      expect(panel).not.toContain('id="model-boundary"');
      const input = elements(panel).find((e) => e.tag === 'input' && e.attrs.name === 'boundary-figure')!;
      expect(input.attrs['aria-invalid']).toBe('true');
      return textOf(panel);
    };
    // The engine's refusals (the same words as over GraphQL and in the CLI), made before anything
    // runs: a what-if value beside the bad figure is not run either.
    expect(await refusal('boundary=keepAliveSeconds:5:15&boundary-figure=nope:above:1&p.keepAliveSeconds=7')).toContain(
      'Unknown figure "nope" (known: peak-sessions, stackegg-demand, worst-page-success).',
    );
    expect(await refusal('boundary=keepAliveSeconds:5:15&boundary-figure=stackegg-demand%3E40000')).toContain('Write figure:above:value or figure:below:value, e.g. peak-sessions:above:100;');
    expect(await refusal('boundary=keepAliveSeconds:5:15&boundary-figure=stackegg-demand:above:1e400')).toContain('The value in “stackegg-demand:above:1e400” is not a finite number.');
    expect(await refusal('boundary=keepAliveSeconds:5:15&boundary-figure=stackegg-demand:above:40000&boundary-check=sessions-pinned-at-cap')).toContain(
      'Search on a check or on a figure, not both.',
    );
    expect(await refusal('boundary-figure=stackegg-demand:above:40000')).toContain('Give the parameter to search too: the figure says what the search above bisects on.');
    expect(await prisma.modelRun.count()).toBe(before);
  });

  it('shows a refused search field again as the reader typed it, to be corrected rather than retyped', async () => {
    const panel = sectionById((await get(`/incidents/${STACKEGG}?boundary=keepAliveSeconds:5:500&boundary-figure=stackegg-demand%3E40000`)).text, 'model');
    const input = (name: string) => elements(panel).find((e) => e.tag === 'input' && e.attrs.name === name)!;
    expect(input('boundary').attrs).toMatchObject({ 'aria-invalid': 'true', value: 'keepAliveSeconds:5:500' });
    expect(input('boundary-figure').attrs).toMatchObject({ 'aria-invalid': 'true', value: 'stackegg-demand>40000' });
    expect(panel).toContain('value="stackegg-demand&gt;40000"');
  });

  it('refuses a sweep or an ensemble beyond what a page may ask, next to the field, and runs nothing', async () => {
    const before = await prisma.modelRun.count();
    const res = await get(`/incidents/${STACKEGG}?sweep=keepAliveSeconds:1:15:50&seeds=500`);
    expect(res.status).toBe(200);
    const panel = sectionById(res.text, 'model');
    expect(textOf(panel)).toContain('Enter from 2 to 12 values to sweep.');
    expect(textOf(panel)).toContain('Enter a whole number of runs from 2 to 20.');
    expect(await prisma.modelRun.count()).toBe(before);
  });
});
