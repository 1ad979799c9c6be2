import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles, syntheticIncident, writeIncidentDocument, writeIncidents } from '@hindsight/incidents';
import { axeViolations, describeViolations } from './support/axe';
import { browserDescribe, launchChromium, serveOnLoopback } from './support/browser';
import { attachSeedModels } from './support/model-seeds';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const SCREENSHOTS = path.join(projectRoot(), '.artifacts', 'screenshots');
const SEEDS = readSeedFiles(path.join(projectRoot(), 'seeds')).incidents;
const CHANGEPROP = 'changeprop-feedback-loop-2016';

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };
const PHONE: BrowserContextOptions = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };
const PHONE_390: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Every page type a reader meets, for the accessibility check. */
const PAGE_TYPES: Array<[string, string]> = [
  ['incident list', '/incidents'],
  ...SEEDS.map((s): [string, string] => [`incident ${s.slug}`, `/incidents/${s.slug}`]),
  ['pattern', '/patterns/retry-amplification'],
  ['patterns', '/patterns'],
  ['durations', '/durations'],
  ['sign-in', '/sign-in'],
  ['follow-ups board', '/actionables'],
  ['incident model with a two-parameter sweep and a boundary on a check', '/incidents/stackegg-haproxy-session-cap-2015?sweep=keepAliveSeconds:5:15:3&sweep2=stackEggRate:1000:3444:2&boundary=keepAliveSeconds:5:10&boundary-check=sessions-pinned-at-cap'],
];

const HOSTILE_NARRATIVE = [
  '## Injected content',
  '',
  '<script>window.__xss = "script"; alert("script")</script>',
  '',
  '<img src="/nope.png" onerror="window.__xss = \'img\'; alert(\'img\')">',
  '',
  '[markdown link](javascript:window.__xss=\'md\';alert("md-link"))',
  '',
  '<a id="injected-a" href="javascript:window.__xss=\'a\';alert(\'a-tag\')">anchor tag</a>',
  '',
  '<svg onload="window.__xss = \'svg\'; alert(\'svg\')"><circle r="4"/></svg>',
  '',
  '<iframe src="javascript:alert(\'iframe\')"></iframe>',
  '',
  '<details open ontoggle="window.__xss=\'details\';alert(\'details\')"><summary>x</summary>y</details>',
  '',
  'The sentence after the payload still renders.',
].join('\n');

/**
 * The callbacks handed to `page.evaluate` run inside the page. The project compiles without the
 * DOM library (it is server code), so they reach the browser's globals through this narrow type:
 * `(globalThis as unknown as Dom)`, an assertion that disappears when compiled.
 */
interface Dom {
  window: { innerHeight: number; scrollTo(x: number, y: number): void; __violations?: string[]; __xss?: string };
  document: {
    documentElement: { scrollWidth: number };
    getElementById(id: string): { scrollIntoView(): void } | null;
    addEventListener(type: 'securitypolicyviolation', listener: (e: { violatedDirective: string; blockedURI: string }) => void): void;
  };
  navigator: { clipboard: { readText(): Promise<string> } };
  getComputedStyle(element: unknown): { fontSize: string; color: string };
}

const describeInBrowser = browserDescribe();

describeInBrowser('pages in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    t = await startTestApp();
    const prisma = testPrisma(t.db.url);
    try {
      const changeprop = await prisma.incident.findUniqueOrThrow({ where: { slug: CHANGEPROP } });
      await prisma.incidentSlugAlias.create({ data: { slug: 'changeprop-retry-loop-2016', incidentId: changeprop.id } });
    } finally {
      await prisma.onModuleDestroy();
    }
    origin = await serveOnLoopback(t);
    browser = await launchChromium();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh context per check; records script errors, CSP violations and dialogs. */
  async function open(options: BrowserContextOptions = DESKTOP): Promise<{ context: BrowserContext; page: Page; problems: string[]; dialogs: string[] }> {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems: string[] = [];
    const dialogs: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await context.addInitScript(() => {
      const { window, document } = globalThis as unknown as Dom;
      const seen: string[] = [];
      window.__violations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    return { context, page, problems, dialogs };
  }

  const violations = (page: Page) => page.evaluate(() => (globalThis as unknown as Dom).window.__violations ?? []);
  const pageWidth = (page: Page) => page.evaluate(() => (globalThis as unknown as Dom).document.documentElement.scrollWidth);
  const inViewport = (page: Page, selector: string) =>
    page.locator(selector).evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.top < (globalThis as unknown as Dom).window.innerHeight;
    });

  /** The viewport as the reader sees it (`fullPage` for short pages only: a long one takes many seconds to paint). */
  async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
  }

  /** One viewport-sized shot per part of an incident page, each scrolled to the top of its section. */
  async function screenshotSections(page: Page, name: string): Promise<void> {
    for (const section of ['top', 'narrative', 'timeline', 'causal-factors', 'actionables']) {
      await page.evaluate((id) => {
        const { window, document } = globalThis as unknown as Dom;
        if (id === 'top') window.scrollTo(0, 0);
        else document.getElementById(id)!.scrollIntoView();
      }, section);
      await screenshot(page, `${name}-${section}`);
    }
  }

  it.each(SEEDS.map((s) => [s.slug]))('loads %s at desktop and phone widths, cleanly, and saves screenshots', async (slug) => {
    const desktop = await open(DESKTOP);
    try {
      const response = await desktop.page.goto(`${origin}/incidents/${slug}`);
      expect(response?.status()).toBe(200);
      await expect(desktop.page.locator('h1').textContent()).resolves.toBe(SEEDS.find((s) => s.slug === slug)!.title);
      // Narrative and model side by side on a wide screen.
      const narrative = (await desktop.page.locator('#narrative').boundingBox())!;
      const model = (await desktop.page.locator('#model').boundingBox())!;
      expect(model.x).toBeGreaterThanOrEqual(narrative.x + narrative.width);
      expect(Math.abs(model.y - narrative.y)).toBeLessThan(2);
      // The graph fits the page's width: every box is inside the drawing, the drawing inside the page.
      const graph = (await desktop.page.locator('.graph-scroll:visible svg').boundingBox())!;
      expect(graph.x + graph.width).toBeLessThanOrEqual(1280);
      await expect(desktop.page.locator('#model').textContent()).resolves.toContain('No model is attached to this incident yet.');
      expect(await pageWidth(desktop.page)).toBeLessThanOrEqual(1280);
      await screenshotSections(desktop.page, `incident-${slug}-desktop`);
      expect(desktop.problems).toEqual([]);
      expect(await violations(desktop.page)).toEqual([]);
    } finally {
      await desktop.context.close();
    }

    const phone = await open(PHONE);
    try {
      await phone.page.goto(`${origin}/incidents/${slug}`);
      // Stacked on a phone, and nothing pushes the page sideways.
      const narrative = (await phone.page.locator('#narrative').boundingBox())!;
      const model = (await phone.page.locator('#model').boundingBox())!;
      expect(model.y).toBeGreaterThanOrEqual(narrative.y + narrative.height);
      expect(await pageWidth(phone.page)).toBeLessThanOrEqual(360);
      // One drawing of the graph shows, scaled to the column: no box is cut off at either side.
      const graphs = phone.page.locator('.graph-scroll:visible svg');
      expect(await graphs.count()).toBe(1);
      const drawn = (await graphs.boundingBox())!;
      expect(drawn.x).toBeGreaterThanOrEqual(0);
      expect(drawn.x + drawn.width).toBeLessThanOrEqual(360);
      for (const node of await phone.page.locator('.graph-scroll:visible a.node rect').all()) {
        const box = (await node.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(drawn.x - 1);
        expect(box.x + box.width).toBeLessThanOrEqual(drawn.x + drawn.width + 1);
      }
      await screenshotSections(phone.page, `incident-${slug}-phone`);
      expect(phone.problems).toEqual([]);
      expect(await violations(phone.page)).toEqual([]);
    } finally {
      await phone.context.close();
    }
  });

  it.each([
    ['incidents', '/incidents'],
    ['actionables', '/actionables'],
    ['patterns', '/patterns'],
    ['pattern-retry-amplification', '/patterns/retry-amplification'],
  ])('renders the %s page at both widths and saves screenshots', async (name, url) => {
    for (const [width, options] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const { context, page, problems } = await open(options);
      try {
        expect((await page.goto(`${origin}${url}`))?.status()).toBe(200);
        expect(await pageWidth(page)).toBeLessThanOrEqual(options.viewport!.width);
        await screenshot(page, `${name}-${width}`, true);
        expect(problems).toEqual([]);
        expect(await violations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it.each(PAGE_TYPES)('finds no axe-core violation on the %s page at 1280 and 390 px', async (_name, url) => {
    for (const options of [DESKTOP, PHONE_390]) {
      // The pages forbid inline script; axe is added as one, so this context bypasses the CSP.
      const context = await browser.newContext({ ...options, bypassCSP: true });
      try {
        const page = await context.newPage();
        expect((await page.goto(`${origin}${url}`))?.status()).toBe(200);
        expect(describeViolations(await axeViolations(page))).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it('lands a runbook link on its factor, jumps from a graph node to its entry, and follows a renamed slug', async () => {
    const { context, page } = await open(PHONE);
    try {
      await page.goto(`${origin}/incidents/${CHANGEPROP}#factor-changeprop-retries-on-500`);
      expect(await inViewport(page, '#factor-changeprop-retries-on-500')).toBe(true);
      expect(await page.locator('#factor-changeprop-retries-on-500').evaluate((el) => el.matches(':target'))).toBe(true);
      await screenshot(page, 'anchor-factor-phone');

      await page.locator('.graph-scroll:visible a.node[data-key="slow-parsoid-render"]').click();
      await page.waitForURL(/#factor-slow-parsoid-render$/);
      expect(await inViewport(page, '#factor-slow-parsoid-render')).toBe(true);

      await page.goto(`${origin}/incidents/changeprop-retry-loop-2016#actionable-changeprop-safer-retry-policy`);
      expect(page.url()).toBe(`${origin}/incidents/${CHANGEPROP}#actionable-changeprop-safer-retry-policy`);
      expect(await inViewport(page, '#actionable-changeprop-safer-retry-policy')).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('copies an absolute anchor link and a runbook snippet to the clipboard', async () => {
    const { context, page, problems } = await open(DESKTOP);
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      await page.goto(`${origin}/incidents/${CHANGEPROP}`);
      const item = page.locator('#timeline-first-retry-count-exceeded');
      await item.locator('button[data-copy-link]').click();
      await item.locator('button[data-copy-link][data-copied]').waitFor();
      await expect(item.locator('button[data-copy-link]').textContent()).resolves.toBe('Copied');
      expect(await page.evaluate(() => (globalThis as unknown as Dom).navigator.clipboard.readText())).toBe(`${origin}/incidents/${CHANGEPROP}#timeline-first-retry-count-exceeded`);
      await expect(page.locator('#copy-status').textContent()).resolves.toContain('Copied to the clipboard');

      await item.locator('summary').click();
      await item.locator('button[data-copy-from]').click();
      await item.locator('button[data-copy-from][data-copied]').waitFor();
      const snippet = await page.evaluate(() => (globalThis as unknown as Dom).navigator.clipboard.readText());
      expect(snippet).toMatch(new RegExp(`^\\[ChangeProp feedback loop .* — 2016-05-05T02:34:16: .*\\]\\(${origin.replace(/[.]/g, '\\.')}/incidents/${CHANGEPROP}#timeline-first-retry-count-exceeded\\)$`));
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('works with JavaScript off: no dead copy buttons, anchor links visible and followable', async () => {
    const { context, page } = await open({ ...PHONE, javaScriptEnabled: false });
    try {
      await page.goto(`${origin}/incidents/${CHANGEPROP}`);
      expect(await page.locator('button.copy-button').count()).toBeGreaterThan(0);
      expect(await page.locator('button.copy-button:visible').count()).toBe(0);
      const permalink = page.locator('#actionable-lvs-endpoint-service-alert a.anchor-link');
      await expect(permalink.isVisible()).resolves.toBe(true);
      await permalink.click();
      expect(page.url()).toBe(`${origin}/incidents/${CHANGEPROP}#actionable-lvs-endpoint-service-alert`);
      expect(await inViewport(page, '#actionable-lvs-endpoint-service-alert')).toBe(true);
      await page.locator('#actionable-lvs-endpoint-service-alert summary').click();
      await expect(page.locator('#snippet-actionable-lvs-endpoint-service-alert').isVisible()).resolves.toBe(true);
      await screenshot(page, 'no-javascript-phone');
    } finally {
      await context.close();
    }
  });

  it('runs no script injected through the narrative', async () => {
    // Added here, last, so the list screenshots above show only the shipped incidents.
    const prisma = testPrisma(t.db.url);
    try {
      const apache = SEEDS.find((s) => s.slug === 'apache-outbound-calls-without-timeouts-2011')!;
      await prisma.$transaction((tx) =>
        writeIncidentDocument(tx, { ...apache, slug: 'hostile-narrative', title: 'Hostile narrative', narrative: HOSTILE_NARRATIVE }, { status: 'published' }),
      );
    } finally {
      await prisma.onModuleDestroy();
    }
    const { context, page, dialogs } = await open(DESKTOP);
    try {
      expect((await page.goto(`${origin}/incidents/hostile-narrative`))?.status()).toBe(200);
      await page.waitForLoadState('networkidle');
      await expect(page.locator('#narrative').textContent()).resolves.toContain('The sentence after the payload still renders.');
      // Whatever is left of the injected links is inert when clicked.
      for (const text of ['markdown link', 'anchor tag']) {
        const target = page.locator('#narrative').getByText(text, { exact: false }).first();
        if ((await target.count()) > 0) await target.click();
      }
      await page.waitForTimeout(200);
      expect(dialogs).toEqual([]);
      expect(await page.evaluate(() => (globalThis as unknown as Dom).window.__xss)).toBeUndefined();
      expect(await page.locator('#narrative script, #narrative iframe, #narrative svg, #narrative img, #narrative [onerror], #narrative [onload]').count()).toBe(0);
      expect(page.url()).toBe(`${origin}/incidents/hostile-narrative`);
      // A link whose URL was refused reads as plain text, not as a dead link.
      const colour = (locator: ReturnType<Page['locator']>) => locator.evaluate((el) => (globalThis as unknown as Dom).getComputedStyle(el).color);
      expect(await page.locator('#narrative a:not([href])').count()).toBeGreaterThan(0);
      expect(await colour(page.locator('#narrative a:not([href])').first())).toBe(await colour(page.locator('#narrative p').last()));
      await screenshot(page, 'hostile-narrative-desktop');
    } finally {
      await context.close();
    }
  });
});

const STACKEGG = 'stackegg-haproxy-session-cap-2015';

/** Globals the model-panel checks read inside the page (see `Dom` above for why this is typed by hand). */
interface ModelDom {
  window: { __marker?: string; scrollTo(x: number, y: number): void };
  document: {
    activeElement: { id: string; tagName: string; textContent: string | null } | null;
    getElementById(id: string): { getAttribute(name: string): string | null; scrollIntoView(): void } | null;
  };
  getComputedStyle(element: unknown): { fontSize: string };
}

describeInBrowser('the model panel in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    t = await startTestApp();
    await attachSeedModels(t.app);
    origin = await serveOnLoopback(t);
    browser = await launchChromium();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    // The default runs are made on the first view; made here so each check below starts the same.
    const warm = await browser.newPage();
    try {
      expect((await warm.goto(`${origin}/incidents/${STACKEGG}`))?.status()).toBe(200);
    } finally {
      await warm.close();
    }
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(options: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    await context.addInitScript(() => {
      const { window, document } = globalThis as unknown as Dom;
      const seen: string[] = [];
      window.__violations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    return { context, page, problems };
  }

  const violations = (page: Page) => page.evaluate(() => (globalThis as unknown as Dom).window.__violations ?? []);
  const screenshot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
  const demandCell = (page: Page) => page.locator('#model tr[data-scenario="as-happened"] td[data-figure="stackegg-demand"]').textContent();
  const mode = (page: Page) => page.locator('#model-body').getAttribute('data-mode');
  /** The what-if form is folded under its heading until a reader opens it. */
  const openWhatIf = (page: Page) => page.locator('#what-if-heading').click();
  const scrollToModel = (page: Page) => page.evaluate(() => (globalThis as unknown as ModelDom).document.getElementById('model')!.scrollIntoView());

  it('runs a what-if and redraws the charts in place: no navigation, URL updated, result announced', async () => {
    const { context, page, problems } = await open(DESKTOP);
    try {
      await page.goto(`${origin}/incidents/${STACKEGG}`);
      expect(await mode(page)).toBe('default');
      expect(await page.locator('#model figure.model-chart svg').count()).toBeGreaterThanOrEqual(1);
      const before = await demandCell(page);
      await scrollToModel(page);
      await screenshot(page, 'model-panel-desktop');
      // Set before the submit: a full page load would wipe it.
      await page.evaluate(() => {
        (globalThis as unknown as ModelDom).window.__marker = 'same document';
      });
      // A full load would fire this; replaceState (a same-document navigation) does not.
      let loads = 0;
      page.on('domcontentloaded', () => loads++);
      await openWhatIf(page);
      await page.locator('#what-if-stackEggRate').fill('1000');
      await page.locator('form.what-if button[type="submit"]').click();
      await page.waitForFunction(() => (globalThis as unknown as ModelDom).document.getElementById('model-body')?.getAttribute('data-mode') === 'what-if');
      expect(await page.evaluate(() => (globalThis as unknown as ModelDom).window.__marker)).toBe('same document');
      expect(loads).toBe(0);
      // Only what the reader changed is in the URL, which now links to this what-if.
      expect(page.url()).toBe(`${origin}/incidents/${STACKEGG}?p.stackEggRate=1000#model`);
      const after = await demandCell(page);
      expect(after).toBe('15,010');
      expect(after).not.toBe(before);
      await expect(page.locator('#model .what-if-note').textContent()).resolves.toContain('What-if');
      expect(await page.locator('#model figure.model-chart svg').count()).toBeGreaterThanOrEqual(1);
      await page.waitForFunction(() => ((globalThis as unknown as ModelDom).document.getElementById('model-status') as unknown as { textContent: string }).textContent !== '');
      await expect(page.locator('#model-status').textContent()).resolves.toContain('Model re-run with your values');
      // Focus stays where the reader was: on the (new) submit button.
      expect(await page.evaluate(() => (globalThis as unknown as ModelDom).document.activeElement?.textContent)).toBe('Run the model');
      await scrollToModel(page);
      await screenshot(page, 'model-what-if-desktop');
      // The linked URL shows the same what-if on a fresh load.
      await page.goto(page.url());
      expect(await demandCell(page)).toBe('15,010');
      expect(problems).toEqual([]);
      expect(await violations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a refused value next to its field and moves focus there, without running anything', async () => {
    const { context, page, problems } = await open(DESKTOP);
    try {
      await page.goto(`${origin}/incidents/${STACKEGG}`);
      const runs = await t.app.get(PrismaService).modelRun.count();
      await openWhatIf(page);
      await page.locator('#what-if-keepAliveSeconds').fill('500');
      await page.locator('form.what-if button[type="submit"]').click();
      await page.waitForFunction(() => (globalThis as unknown as ModelDom).document.getElementById('model-body')?.getAttribute('data-mode') === 'refused');
      expect(await page.evaluate(() => (globalThis as unknown as ModelDom).document.activeElement?.id)).toBe('what-if-keepAliveSeconds');
      await expect(page.locator('#what-if-keepAliveSeconds-error').textContent()).resolves.toBe('500 is out of range. Enter a number from 0 to 120 s.');
      await expect(page.locator('#what-if-keepAliveSeconds').getAttribute('aria-invalid')).resolves.toBe('true');
      expect(await t.app.get(PrismaService).modelRun.count()).toBe(runs);
      await page.locator('#what-if-keepAliveSeconds').scrollIntoViewIfNeeded();
      await screenshot(page, 'model-what-if-refused-desktop');
      expect(problems).toEqual([]);
      expect(await violations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('turns an on/off parameter off with its checkbox, with JavaScript on and off', async () => {
    for (const javaScriptEnabled of [true, false]) {
      const { context, page, problems } = await open({ ...DESKTOP, javaScriptEnabled });
      try {
        await page.goto(`${origin}/incidents/${STACKEGG}`);
        await openWhatIf(page);
        const box = page.locator('#what-if-stackEggEnabled');
        expect(await box.getAttribute('type')).toBe('checkbox');
        expect(await box.isChecked()).toBe(true);
        await box.uncheck();
        await Promise.all([page.waitForURL(/[?&]p\.stackEggEnabled=0/), page.locator('form.what-if button[type="submit"]').click()]);
        await page.waitForFunction(() => (globalThis as unknown as ModelDom).document.getElementById('model-body')?.getAttribute('data-mode') === 'what-if');
        await expect(page.locator('#model .what-if-note').textContent()).resolves.toContain('StackEgg switched on: off (default on)');
        expect(await page.locator('#what-if-stackEggEnabled').isChecked()).toBe(false);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it('runs a what-if through the plain GET form with JavaScript off', async () => {
    const { context, page } = await open({ ...PHONE, javaScriptEnabled: false });
    try {
      await page.goto(`${origin}/incidents/${STACKEGG}`);
      await openWhatIf(page);
      await page.locator('#what-if-stackEggRate').fill('1000');
      await Promise.all([page.waitForURL(/[?&]p\.stackEggRate=1000/), page.locator('form.what-if button[type="submit"]').click()]);
      expect(new URL(page.url()).pathname).toBe(`/incidents/${STACKEGG}`);
      expect(new URL(page.url()).hash).toBe('#model');
      expect(await mode(page)).toBe('what-if');
      expect(await demandCell(page)).toBe('15,010');
      await screenshot(page, 'model-what-if-no-javascript-phone');
    } finally {
      await context.close();
    }
  });

  it.each(SEEDS.map((s) => [s.slug]))('%s with its model: axe finds nothing at 1280 and 390 px, and the model leaves no blank column', async (slug) => {
    for (const [width, options] of [['desktop', DESKTOP], ['phone', PHONE_390]] as const) {
      const context = await browser.newContext({ ...options, bypassCSP: true });
      try {
        const page = await context.newPage();
        expect((await page.goto(`${origin}/incidents/${slug}`))?.status()).toBe(200);
        expect(describeViolations(await axeViolations(page))).toEqual([]);
        const height = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollHeight: number } } }).document.documentElement.scrollHeight);
        console.log(`${slug} at ${options.viewport!.width} px: ${height} px tall`);
        if (width === 'desktop') {
          // Beside the narrative and the timeline, the model ends within a screen of them.
          const model = (await page.locator('#model').boundingBox())!;
          const timeline = (await page.locator('#timeline').boundingBox())!;
          expect(model.y + model.height).toBeLessThanOrEqual(timeline.y + timeline.height + 900);
        }
        for (const id of ['model-charts-heading', 'causal-factors']) {
          await page.evaluate((target) => (globalThis as unknown as ModelDom).document.getElementById(target)!.scrollIntoView(), id);
          await page.screenshot({ path: path.join(SCREENSHOTS, `model-${slug}-${width}-${id}.png`) });
        }
      } finally {
        await context.close();
      }
    }
  });

  it('reads at 360 px: charts fit the aside with legible text, nothing pushes the page sideways', async () => {
    const { context, page, problems } = await open(PHONE);
    try {
      await page.goto(`${origin}/incidents/${STACKEGG}#model`);
      expect(await page.evaluate(() => (globalThis as unknown as Dom).document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      const aside = (await page.locator('#model').boundingBox())!;
      const charts = page.locator('#model svg.model-chart-svg');
      expect(await charts.count()).toBeGreaterThanOrEqual(1);
      for (let i = 0; i < (await charts.count()); i++) {
        const box = (await charts.nth(i).boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(aside.x);
        expect(box.x + box.width).toBeLessThanOrEqual(aside.x + aside.width);
        // Tick labels are 11 units in a 300-unit drawing: at this width they stay at least 10 px.
        const viewBoxWidth = Number((await charts.nth(i).getAttribute('viewBox'))!.split(' ')[2]);
        expect((box.width / viewBoxWidth) * 11).toBeGreaterThanOrEqual(10);
      }
      // One viewport per part of the panel, each scrolled to the top of its heading.
      for (const [id, name] of [
        ['model', 'model-panel-phone'],
        ['model-charts-heading', 'model-charts-phone'],
        ['model-scenarios-heading', 'model-scenarios-phone'],
        ['model-figures-heading', 'model-figures-phone'],
        ['model-checks-heading', 'model-checks-phone'],
        ['what-if-heading', 'model-what-if-form-phone'],
      ]) {
        await page.evaluate((target) => (globalThis as unknown as ModelDom).document.getElementById(target)!.scrollIntoView(), id);
        await screenshot(page, name);
      }
      expect(problems).toEqual([]);
      expect(await violations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describeInBrowser('filter suggestions as one types, in headless Chromium', () => {
  /** More distinct values than the page's first list holds (200), all sorting before the rare ones. */
  const FILLERS = 210;
  const RARE = { organization: 'Zephyrine Relay Works', component: 'zephyr-queue', owner: 'Zephyrine Night Desk' };
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    t = await startTestApp();
    const prisma = testPrisma(t.db.url);
    try {
      const keys = (await prisma.pattern.findMany({ select: { key: true }, orderBy: { key: 'asc' } })).map((p) => p.key);
      const n3 = (n: number) => String(n).padStart(3, '0');
      const docs = Array.from({ length: FILLERS + 1 }, (_, n) => {
        const { doc } = syntheticIncident(11, n, keys);
        const rare = n === FILLERS;
        return {
          ...doc,
          organization: rare ? RARE.organization : `Filler org ${n3(n)}`,
          components: [rare ? RARE.component : `filler-component-${n3(n)}`],
          actionables: doc.actionables.map((a, i) => ({ ...a, status: 'open' as const, owner: rare && i === 0 ? RARE.owner : `Filler owner ${n3(n)}-${i}` })),
        };
      });
      await prisma.$transaction((tx) => writeIncidents(tx, docs.map((doc) => ({ before: null, after: { doc, status: 'published' as const } }))), { timeout: 120_000 });
    } finally {
      await prisma.onModuleDestroy();
    }
    origin = await serveOnLoopback(t);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const listValues = (page: Page, field: string) => page.locator(`#field-${field}-suggestions option`).evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));

  it.each([
    ['/incidents', 'organization', 'zeph', RARE.organization],
    ['/incidents', 'component', 'ZEPHYR', RARE.component],
    ['/actionables', 'owner', 'night d', RARE.owner],
  ])('on %s, the %s field offers, once "%s" is typed, a value too rare for the first list', async (url, field, typed, rare) => {
    const context = await browser.newContext(DESKTOP);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    try {
      await page.goto(`${origin}${url}`);
      // Without typing, the list holds the 200 most frequent values, and the rare one is not among them.
      const first = await listValues(page, field);
      expect(first).toHaveLength(200);
      expect(first).not.toContain(rare);
      await page.locator(`#field-${field}`).pressSequentially(typed, { delay: 30 });
      await page.locator(`#field-${field}-suggestions[data-suggested-for="${typed}"]`).waitFor({ state: 'attached' });
      const offered = await listValues(page, field);
      expect(offered).toContain(rare);
      expect(offered.length).toBeLessThanOrEqual(10);
      // Emptying the field brings the first list back.
      await page.locator(`#field-${field}`).fill('');
      await page.locator(`#field-${field}`).dispatchEvent('input');
      await page.waitForFunction((id) => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll(`#${id} option`).length === 200, `field-${field}-suggestions`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('filters by what was typed with JavaScript off: the field is a plain form field', async () => {
    const context = await browser.newContext({ ...DESKTOP, javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(`${origin}/incidents`);
      await page.locator('#field-organization').fill('zeph');
      await page.locator('form.filters button[type="submit"]').click();
      await page.waitForURL(/organization=zeph/);
      expect(await page.locator('.incident-list h2 a').allTextContents()).toHaveLength(1);
      expect(await page.locator('.incident-list .meta').first().textContent()).toContain(RARE.organization);
    } finally {
      await context.close();
    }
  });
});
