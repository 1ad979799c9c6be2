import fs from 'node:fs';
import path from 'node:path';

let cached: string | undefined;

/** The folder holding the project's package.json, found from this file in `src/` or `dist/`. */
export function projectRoot(): string {
  if (cached) return cached;
  let dir = __dirname;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && fs.existsSync(path.join(dir, 'prisma', 'schema.prisma'))) {
      cached = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('Cannot find the project root (package.json beside prisma/schema.prisma).');
    dir = parent;
  }
}

export function migrationsDir(): string {
  return path.join(projectRoot(), 'prisma', 'migrations');
}
