import type { Browser } from 'playwright-core';
import { AccountsService, TeamsService } from '@hindsight/tracking';
import { issueTokens } from './support/api-tokens';
import { browserDescribe, launchChromium, serveOnLoopback } from './support/browser';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const STACKEGG = 'stackegg-haproxy-session-cap-2015';
const KEY = 'measure-keep-alive-effect-via-client-timings';
const PASSWORD = 'a long enough password';
const DRAFT = [
  '---',
  'title: Cache node swap left the pool cold',
  'date: 2024-05-06',
  'organization: Example Corp',
  '---',
  '# Cache node swap left the pool cold',
  '',
  '## Summary',
  'A cache node was replaced at peak and the new one started empty, so the database took every read.',
  '',
  '## Timeline (UTC)',
  '- 10:00 Node replaced during the traffic peak',
  '- 10:05 Hit ratio alert fires',
  '',
  '## Action items',
  '- [ ] Warm new cache nodes before they take traffic',
  '',
  '<!-- reviewer: check the times against the pager log -->',
].join('\n');

const describeInBrowser = browserDescribe();

describeInBrowser('signing in and editing a follow-up in headless Chromium, JavaScript off', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let draftSlug: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { PASSWORD_HASH_ROUNDS: '4' } });
    const prisma = testPrisma(t.db.url);
    try {
      await new AccountsService(prisma, { passwordHashRounds: 4, sessionIdleSeconds: 3600, sessionMaxAgeSeconds: 3600 }).create('ana', 'editor', { name: 'test-setup', tokenId: null }, PASSWORD);
      await new TeamsService(prisma).create('Edge team', { name: 'test-setup', tokenId: null });
    } finally {
      await prisma.onModuleDestroy();
    }
    const { as } = await issueTokens(t);
    const imported = await t.gql<{ importPostmortem: { incident: { slug: string } } }>(
      'mutation($input: ImportPostmortemInput!) { importPostmortem(input: $input) { incident { slug } } }',
      { input: { document: DRAFT } },
      as('editor'),
    );
    draftSlug = imported.data.importPostmortem.incident.slug;
    origin = await serveOnLoopback(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('follows the edit link to sign in, comes back to the form, saves, and signs out', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${origin}/incidents/${STACKEGG}`);
    await page.click(`#actionable-${KEY} .edit-link a`);
    // Not signed in: the sign-in page, which returns to the form afterwards.
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await page.fill('#field-name', 'ana');
    await page.fill('#field-password', PASSWORD);
    await page.click('.sign-in-form button[type=submit]');
    expect(new URL(page.url()).pathname).toBe(`/incidents/${STACKEGG}/actionables/${KEY}/edit`);

    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'hindsight_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    await page.selectOption('#field-status', 'in_progress');
    await page.selectOption('#field-owner', 'team:Edge team');
    await page.fill('#field-dueDate', '2027-03-01');
    await page.selectOption('#field-priority', 'p2');
    await page.fill('#field-references', 'T424242');
    await page.fill('#field-note', 'Taken on for next quarter');
    await page.click('.edit-form button[type=submit]');

    const url = new URL(page.url());
    expect(`${url.pathname}${url.hash}`).toBe(`/incidents/${STACKEGG}#actionable-${KEY}`);
    const item = page.locator(`#actionable-${KEY}`);
    await expect(item.locator('.status-badge').textContent()).resolves.toMatch(/In progress/i);
    await expect(item.textContent()).resolves.toContain('Edge team');
    await expect(item.textContent()).resolves.toContain('2027-03-01');
    await expect(item.textContent()).resolves.toContain('T424242');

    await page.goto(`${origin}/sign-in`);
    await page.click('.sign-out-form button[type=submit]');
    await page.goto(`${origin}/incidents/${STACKEGG}/actionables/${KEY}/edit`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await context.close();
  });

  it('reviews an imported draft beside its source, corrects a field, and publishes it', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${origin}/drafts`);
    await page.fill('#field-name', 'ana');
    await page.fill('#field-password', PASSWORD);
    await page.click('.sign-in-form button[type=submit]');
    expect(new URL(page.url()).pathname).toBe('/drafts');
    await page.click(`a[href="/drafts/${draftSlug}"]`);
    // Every line of the source, numbered, beside the draft; the timeline lines say what they became.
    await expect(page.locator('.source-lines > li').count()).resolves.toBe(DRAFT.split('\n').length);
    await expect(page.locator('#line-12').textContent()).resolves.toMatch(/used for timeline\./);
    // The line the importer did not use is highlighted in the source and listed beside the draft.
    const last = DRAFT.split('\n').length;
    await expect(page.locator('.source-lines mark').allTextContents()).resolves.toEqual(['<!-- reviewer: check the times against the pager log -->']);
    await expect(page.locator(`#line-${last}`).getAttribute('class')).resolves.toContain('unused');
    await expect(page.locator('.unused-lines').textContent()).resolves.toContain(`line ${last}`);
    await page.click('text=Edit the extracted fields');
    await page.fill('#field-impact', 'Reads slowed for twenty minutes.');
    await page.click('.edit-form button[type=submit]');
    expect(new URL(page.url()).pathname).toBe(`/incidents/${draftSlug}/edit`);
    await page.goto(`${origin}/drafts/${draftSlug}`);
    await expect(page.locator('.facts').textContent()).resolves.toContain('Reads slowed for twenty minutes.');
    await page.click('.publish-form button[type=submit]');
    expect(new URL(page.url()).pathname).toBe(`/incidents/${draftSlug}`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Cache node swap left the pool cold');
    await context.close();
  });
});
