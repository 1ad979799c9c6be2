import type { Page } from 'playwright-core';

/** One axe rule a page breaks, with the elements that break it (their CSS selectors). */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

// axe-core ships a CommonJS entry whose `source` is the script to run inside a page.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const AXE_SOURCE = (require('axe-core') as { source: string }).source;

/**
 * Runs axe-core in the page and returns its violations: WCAG 2.0 to 2.2 A and AA, best practices,
 * and the rules axe still calls experimental, among them `label-content-name-mismatch` (a link's
 * accessible name must contain its visible text) and `target-size` (24 px touch targets).
 * The pages forbid inline script by CSP, so the page's context must be opened with
 * `bypassCSP: true` for the script to be added.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      resultTypes: ['violations'],
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice', 'experimental'] },
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')) }));
  });
}

/** Violations in one line each, for a test failure message or a report. */
export function describeViolations(violations: readonly AxeViolation[]): string[] {
  return violations.map((v) => `${v.id} (${v.impact ?? 'n/a'}): ${v.help} — ${v.targets.slice(0, 5).join(', ')}${v.targets.length > 5 ? ` and ${v.targets.length - 5} more` : ''}`);
}
