import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const root = path.resolve(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: Record<string, string> | string[]; dev?: boolean; devOptional?: boolean }>;
};

/**
 * Packages allowed to ask for a newer Node than ours, each with the reason. Every one must stay
 * out of a production install (`npm ci --omit=dev --omit=optional`).
 */
const ALLOWED: Record<string, string> = {
  'node_modules/@prisma/streams-local':
    'prisma (CLI, dev) → @prisma/dev (exact pin) → @prisma/streams-local, for `prisma dev`, which this project never runs; every published version declares Node >= 22',
};

describe('dependencies fit the Node version package.json states', () => {
  const stated = manifest.engines.node;
  const oldest = semver.minVersion(stated)!.version;
  // The oldest Node we claim, and the one running the tests.
  const versions = [...new Set([oldest, process.versions.node])];

  it(`every package in package-lock.json accepts Node ${versions.join(' and ')} (engines: ${stated})`, () => {
    const misfits: string[] = [];
    for (const [where, entry] of Object.entries(lock.packages)) {
      if (!where || ALLOWED[where]) continue;
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!range) continue;
      for (const v of versions) {
        if (!semver.satisfies(v, range, { includePrerelease: true })) misfits.push(`${where}@${entry.version} wants node ${range}, excludes ${v}`);
      }
    }
    expect(misfits).toEqual([]);
  });

  it('keeps the exceptions real and out of production', () => {
    for (const where of Object.keys(ALLOWED)) {
      const entry = lock.packages[where];
      expect([where, entry !== undefined]).toEqual([where, true]);
      const range = Array.isArray(entry!.engines) ? undefined : entry!.engines?.node;
      // Drop the exception as soon as a version that fits arrives.
      expect([where, range !== undefined && !semver.satisfies(oldest, range)]).toEqual([where, true]);
      expect([where, entry!.dev === true || entry!.devOptional === true]).toEqual([where, true]);
    }
  });
});
