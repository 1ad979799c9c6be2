/**
 * Audits the server-rendered pages as a reader's browser sees them: for each page type (the
 * incident list, the four seeded incidents with their models attached, a pattern, durations,
 * sign-in and the follow-ups board), the page height and DOM size at 1280 and 390 px, the axe-core
 * violations at both widths, and Lighthouse's four category scores with its mobile settings
 * (simulated throttling, Moto G-sized screen). Everything runs on this machine: a scratch database
 * seeded from seeds/, the real app on a loopback port, and Chromium at /usr/bin/chromium.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres \
 *     node -r ./scripts/register-ts.js bench/pages-audit.ts
 *
 * Lighthouse runs LIGHTHOUSE_RUNS times per page (default 3; the median of each figure is kept).
 * LIGHTHOUSE=0 skips Lighthouse (heights, DOM and axe only); PAGES=incident-stackegg,sign-in keeps
 * only the named pages. Prints one JSON line per page, then a markdown table.
 */
import type { Server } from 'node:http';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { migrate, migrationsDir, PrismaService, projectRoot } from '@hindsight/db';
import { readSeedFiles, seedDatabase } from '@hindsight/incidents';
import { ModelRunsService, seedModels } from '@hindsight/model-runs';
import { createApp } from '../apps/api/src/bootstrap';
import { loadConfig } from '../apps/api/src/config/app-config';
import { axeViolations, describeViolations } from '../test/support/axe';
import { createScratchDatabase } from './scratch-database';

const CHROMIUM = '/usr/bin/chromium';
const CHROME_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

const PAGES: Array<{ name: string; path: string }> = [
  { name: 'incident-list', path: '/incidents' },
  { name: 'incident-stackegg', path: '/incidents/stackegg-haproxy-session-cap-2015' },
  { name: 'incident-changeprop', path: '/incidents/changeprop-feedback-loop-2016' },
  { name: 'incident-slack', path: '/incidents/slack-cache-metastability-2022' },
  { name: 'incident-apache', path: '/incidents/apache-outbound-calls-without-timeouts-2011' },
  { name: 'pattern', path: '/patterns/retry-amplification' },
  { name: 'durations', path: '/durations' },
  { name: 'sign-in', path: '/sign-in' },
  { name: 'actionables-board', path: '/actionables' },
];

interface WidthFigures {
  height: number;
  domElements: number;
  /** Elements that break an axe rule, and the rules in words. */
  axeNodes: number;
  axe: string[];
}

interface PageReport {
  page: string;
  desktop: WidthFigures;
  phone: WidthFigures;
  lighthouse: Record<string, number> | null;
  blockingMs: number | null;
  styleLayoutMs: number | null;
  /** Lighthouse audits of the four categories that did not pass. */
  failedAudits: string[];
}

// Lighthouse and chrome-launcher are ES modules; this script is compiled to CommonJS, whose
// `import()` would become `require()`.
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;

async function measure(browser: Browser, url: string, width: number): Promise<WidthFigures> {
  const phone = width < 600;
  const context = await browser.newContext({ viewport: { width, height: phone ? 800 : 900 }, isMobile: phone, hasTouch: phone, bypassCSP: true });
  try {
    const page = await context.newPage();
    const response = await page.goto(url);
    if (response?.status() !== 200) throw new Error(`${url} answered ${response?.status()}`);
    const figures = await page.evaluate(() => {
      const d = (globalThis as unknown as { document: { documentElement: { scrollHeight: number }; getElementsByTagName(n: string): { length: number } } }).document;
      return { height: d.documentElement.scrollHeight, domElements: d.getElementsByTagName('*').length };
    });
    const violations = await axeViolations(page);
    return { ...figures, axeNodes: violations.reduce((n, v) => n + v.targets.length, 0), axe: describeViolations(violations) };
  } finally {
    await context.close();
  }
}

interface LighthouseFigures {
  scores: Record<string, number>;
  blockingMs: number;
  /** Main-thread time on style and layout, and on script, in the simulated (4× slower) CPU. */
  styleLayoutMs: number;
  scriptMs: number;
  failedAudits: string[];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Lighthouse `runs` times (the machine is shared and noisy): the median of each figure. */
async function lighthouseMedian(url: string, runs: number): Promise<LighthouseFigures> {
  const all: LighthouseFigures[] = [];
  for (let i = 0; i < runs; i++) all.push(await lighthouseScores(url));
  const scores = Object.fromEntries(Object.keys(all[0]!.scores).map((k) => [k, median(all.map((r) => r.scores[k]!))]));
  return {
    scores,
    blockingMs: median(all.map((r) => r.blockingMs)),
    styleLayoutMs: median(all.map((r) => r.styleLayoutMs)),
    scriptMs: median(all.map((r) => r.scriptMs)),
    failedAudits: [...new Set(all.flatMap((r) => r.failedAudits))],
  };
}

async function lighthouseScores(url: string): Promise<LighthouseFigures> {
  const { launch } = (await importEsm('chrome-launcher')) as { launch(o: unknown): Promise<{ port: number; kill(): Promise<void> | void }> };
  const lighthouse = (await importEsm('lighthouse')).default as (url: string, flags: unknown) => Promise<{
    lhr: { categories: Record<string, { score: number | null; auditRefs: Array<{ id: string; weight: number }> }>; audits: Record<string, { numericValue?: number; score: number | null; scoreDisplayMode: string; details?: { items?: Array<{ group?: string; duration?: number }> } }> };
  }>;
  const chrome = await launch({ chromePath: CHROMIUM, chromeFlags: CHROME_FLAGS, logLevel: 'error' });
  try {
    const { lhr } = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'] });
    const scores = Object.fromEntries(Object.entries(lhr.categories).map(([k, c]) => [k, Math.round((c.score ?? 0) * 100)]));
    const failedAudits = Object.values(lhr.categories)
      .flatMap((c) => c.auditRefs.filter((r) => r.weight > 0).map((r) => r.id))
      .filter((id) => {
        const a = lhr.audits[id];
        return a && a.scoreDisplayMode === 'binary' && a.score !== null && a.score < 1;
      });
    const work = lhr.audits['mainthread-work-breakdown']?.details?.items ?? [];
    const group = (name: string) => Math.round(work.find((w) => w.group === name)?.duration ?? 0);
    return {
      scores,
      blockingMs: Math.round(lhr.audits['total-blocking-time']?.numericValue ?? 0),
      styleLayoutMs: group('styleLayout'),
      scriptMs: group('scriptEvaluation'),
      failedAudits: [...new Set(failedAudits)],
    };
  } finally {
    await chrome.kill();
  }
}

async function main(): Promise<void> {
  const only = process.env.PAGES?.split(',').filter(Boolean);
  const pages = only ? PAGES.filter((p) => only.includes(p.name)) : PAGES;
  const withLighthouse = process.env.LIGHTHOUSE !== '0';
  const runs = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
  const db = await createScratchDatabase('hindsight_pages_audit');
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  let browser: Browser | undefined;
  try {
    await migrate(db.url, migrationsDir());
    const config = loadConfig({ ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn', RATE_LIMIT_MODEL_RUNS_PER_ADDRESS: '0', RATE_LIMIT_MODEL_RUNS_PER_TOKEN: '0' });
    app = await createApp(config, db.url, { logger: ['error'] });
    await app.init();
    const prisma = app.get(PrismaService);
    await seedDatabase(prisma, readSeedFiles(path.join(projectRoot(), 'seeds')));
    await seedModels(prisma, app.get(ModelRunsService), path.join(projectRoot(), 'seeds'));
    await app.listen(0, '127.0.0.1');
    const origin = `http://127.0.0.1:${((app.getHttpServer() as Server).address() as { port: number }).port}`;
    // The first view of an incident makes its default model runs; warm every page first so each
    // measurement below reads stored runs.
    for (const p of pages) await fetch(`${origin}${p.path}`).then((r) => r.text());

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROME_FLAGS });
    const reports: PageReport[] = [];
    for (const p of pages) {
      const url = `${origin}${p.path}`;
      const desktop = await measure(browser, url, 1280);
      const phone = await measure(browser, url, 390);
      const lh = withLighthouse ? await lighthouseMedian(url, runs) : null;
      const report: PageReport = { page: p.name, desktop, phone, lighthouse: lh?.scores ?? null, blockingMs: lh?.blockingMs ?? null, styleLayoutMs: lh?.styleLayoutMs ?? null, failedAudits: lh?.failedAudits ?? [] };
      reports.push(report);
      console.log(JSON.stringify(report));
    }

    console.log('\n| page | height 1280 px | height 390 px | DOM elements | axe violations, elements (1280 / 390) | Lighthouse mobile perf / a11y / best practices / SEO | total blocking time | style and layout |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const r of reports) {
      const lh = r.lighthouse ? `${r.lighthouse.performance} / ${r.lighthouse.accessibility} / ${r.lighthouse['best-practices']} / ${r.lighthouse.seo}` : 'not run';
      console.log(`| ${r.page} | ${r.desktop.height} | ${r.phone.height} | ${r.desktop.domElements} | ${r.desktop.axeNodes} / ${r.phone.axeNodes} | ${lh} | ${r.blockingMs === null ? 'n/a' : `${r.blockingMs} ms`} | ${r.styleLayoutMs === null ? 'n/a' : `${r.styleLayoutMs} ms`} |`);
    }
    const failed = [...new Set(reports.flatMap((r) => r.failedAudits))];
    console.log(`\nLighthouse audits not passed: ${failed.length === 0 ? 'none' : failed.join(', ')}`);
    const rules = [...new Set(reports.flatMap((r) => [...r.desktop.axe, ...r.phone.axe].map((v) => v.split(' ')[0])))];
    console.log(`\naxe rules broken: ${rules.length === 0 ? 'none' : rules.join(', ')}`);
  } finally {
    await browser?.close();
    await app?.close();
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
