import fs from 'node:fs';
import path from 'node:path';

let cached: string | undefined;

/**
 * The folder holding the data files the app reads at run time (`prisma/migrations/`, `seeds/`),
 * found from this file: the project's root when running from sources, or the build folder
 * itself (`dist/`), which `npm run build` fills with copies so it runs without the source tree.
 */
export function projectRoot(): string {
  if (cached) return cached;
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'prisma', 'migrations')) && fs.existsSync(path.join(dir, 'seeds'))) {
      cached = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`Cannot find prisma/migrations and seeds/ above ${__dirname}; a build needs \`npm run build\`, which copies them.`);
    dir = parent;
  }
}

export function migrationsDir(): string {
  return path.join(projectRoot(), 'prisma', 'migrations');
}
