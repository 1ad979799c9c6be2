import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { issueTokens } from './support/api-tokens';
import { browserDescribe, launchChromium, serveOnLoopback } from './support/browser';
import { startTestApp, type TestApp } from './support/test-app';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const describeInBrowser = browserDescribe();

describeInBrowser('the model builder in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let editor: string;
  let viewer: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({
      tokens: { editor, viewer },
    } = await issueTokens(t));
    origin = await serveOnLoopback(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('is for editors: a viewer is refused', async () => {
    const context = await browser.newContext({ extraHTTPHeaders: { Authorization: `Bearer ${viewer}` } });
    const page = await context.newPage();
    const res = await page.goto(`${origin}/incidents/${STACKEGG}/model-builder`);
    expect(res!.status()).toBe(403);
    await context.close();
  });

  it('takes an incident without a model to an attached model with a verdict beside each matched actionable, without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders: { Authorization: `Bearer ${editor}` } });
    const page = await context.newPage();
    await page.goto(`${origin}/incidents/${STACKEGG}`);
    expect(await page.locator('[data-verdict]').count()).toBe(0);

    await page.goto(`${origin}/incidents/${STACKEGG}/model-builder`);
    expect(await page.locator('input[type="radio"][name="template"][value="connection-cap"]').isChecked()).toBe(true);
    const capRow = page.locator('tr[data-param="cap"]');
    expect(await capRow.locator('input').inputValue()).toBe('40000');
    expect(await capRow.textContent()).toContain('from the text');
    expect(await capRow.locator('a').getAttribute('href')).toMatch(new RegExp(`^/incidents/${STACKEGG}#`));

    // Adjust a parameter and run the draft: every scenario gets an outcome.
    await page.fill('#p-backlog', '2048');
    await page.click('button[name="run"]');
    expect(page.url()).toContain('p.backlog=2048');
    expect(await page.locator('tr[data-scenario="as-happened"] .outcome').textContent()).toBe('FAILS');
    const raise = page.locator('tr[data-scenario^="raise-cap--"] .outcome');
    expect(await raise.first().textContent()).toBe('PREVENTED');
    expect(await page.locator('tr[data-param="backlog"]').textContent()).toContain('set by you');

    // Attach it: back on the incident page, the model sits beside the narrative with verdicts.
    await page.click('text=Attach this model');
    expect(page.url()).toBe(`${origin}/incidents/${STACKEGG}#model`);
    expect(await page.locator('[data-verdict]').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('[data-verdict="PREVENTED"]').count()).toBeGreaterThanOrEqual(1);
    await context.close();
  });

  it('shows validation errors of an edited spec at their path and keeps what was attached', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders: { Authorization: `Bearer ${editor}` } });
    const page = await context.newPage();
    await page.goto(`${origin}/incidents/${STACKEGG}/model-builder`);
    const attached = await page.locator('input[name="expectedModel"]').first().inputValue();
    expect(attached).toMatch(/@\d+$/);
    const spec = JSON.parse(await page.locator('#spec-json').inputValue());
    spec.stations[0].slots = -3;
    await page.fill('#spec-json', JSON.stringify(spec));
    await page.click('text=Save as a new version and attach');
    expect(await page.locator('.errors').textContent()).toContain('stations[0].slots');
    await page.goto(`${origin}/incidents/${STACKEGG}/model-builder`);
    expect(await page.locator('input[name="expectedModel"]').first().inputValue()).toBe(attached);
    await context.close();
  });

  it('imports a postmortem, publishes it, and takes it from the builder to a model beside the narrative with a verdict on each matched actionable', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders: { Authorization: `Bearer ${editor}` } });
    const document = fs.readFileSync(path.join(__dirname, 'fixtures', 'disk-full-postmortem.md'), 'utf8');
    const imported = await context.request.post(`${origin}/graphql`, {
      data: { query: 'mutation I($input: ImportPostmortemInput!) { importPostmortem(input: $input) { incident { slug } } }', variables: { input: { document } } },
    });
    const body = (await imported.json()) as { data: { importPostmortem: { incident: { slug: string } } }; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    const slug = body.data.importPostmortem.incident.slug;

    // Publish from the draft review page; it lands on the incident page, with no model yet.
    const page = await context.newPage();
    await page.goto(`${origin}/drafts/${slug}`);
    await page.click('.publish-form button[type="submit"]');
    expect(page.url()).toBe(`${origin}/incidents/${slug}`);
    expect(await page.locator('#model').textContent()).toContain('No model is attached');

    // The page links editors to the builder.
    await page.click('.model-builder-link a');
    expect(page.url()).toBe(`${origin}/incidents/${slug}/model-builder`);
    expect(await page.locator('input[type="radio"][name="template"][value="resource-exhaustion"]').isChecked()).toBe(true);
    expect(await page.locator('tr[data-param="recoverSeconds"]').textContent()).toContain('timeline');
    expect(await page.locator('#p-recoverSeconds').inputValue()).toBe('10200');

    // With the template's 15 minutes from alert to response, the alert comes in time; with 50 it does not.
    await page.click('button[name="run"]');
    const alert = page.locator('tr[data-scenario^="alert-earlier--"] .outcome');
    expect(await alert.first().textContent()).toBe('PREVENTED');
    await page.fill('#p-respondSeconds', '3000');
    await page.click('button[name="run"]');
    expect(page.url()).toContain('p.respondSeconds=3000');
    expect(await alert.first().textContent()).toBe('REDUCED');
    expect(await page.locator('tr[data-param="respondSeconds"]').textContent()).toContain('set by you');

    await page.click('text=Attach this model');
    expect(page.url()).toBe(`${origin}/incidents/${slug}#model`);
    expect(await page.locator('#narrative').count()).toBe(1);
    expect(await page.locator('#model [data-verdict]').count()).toBeGreaterThanOrEqual(3);
    // Each actionable the draft matched carries the model's verdict beside it.
    const actionables = page.locator('#actionables li:has(.actionable-verdict)');
    expect(await actionables.count()).toBe(3);
    expect(await page.locator('#actionables [data-verdict="REDUCED"]').count()).toBeGreaterThanOrEqual(1);
    await context.close();
  });
});

