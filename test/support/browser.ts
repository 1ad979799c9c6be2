import fs from 'node:fs';
import type { Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import type { TestApp } from './test-app';

/** Debian's Chromium (`apt-get install -y chromium`; `.ci/run` installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

/** `describe` where Chromium is installed; elsewhere `describe.skip`, and says why once per suite file. */
export function browserDescribe(): jest.Describe {
  if (fs.existsSync(CHROMIUM)) return describe;
  console.warn(`Browser tests skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium).`);
  return describe.skip;
}

/** Headless Chromium with the flags these machines need. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** Serves the test app on a free loopback port and returns its origin (`http://127.0.0.1:<port>`). */
export async function serveOnLoopback(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${((t.app.getHttpServer() as Server).address() as { port: number }).port}`;
}
