import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../apps/api/src/config/app-config';

const root = path.resolve(__dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** Every variable the config reads: what loadConfig touches, plus every name its source quotes. */
function variablesRead(): string[] {
  const touched = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') touched.add(key);
      return undefined;
    },
    has(_target, key) {
      if (typeof key === 'string') touched.add(key);
      return false;
    },
  });
  loadConfig(env, root, false);
  const source = read('apps/api/src/config/app-config.ts');
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]|\(\s*'([A-Z][A-Z0-9_]{2,})'/g)) touched.add((m[1] ?? m[2] ?? m[3])!);
  return [...touched].filter((k) => /^[A-Z][A-Z0-9_]+$/.test(k)).sort();
}

describe('every setting is documented', () => {
  const variables = variablesRead();

  it('finds the variables the config reads', () => {
    expect(variables).toEqual(expect.arrayContaining(['DATABASE_URL', 'PORT', 'LOG_LEVEL', 'METRICS_TOKEN', 'MODEL_DEFAULT_SEED']));
  });

  it('lists each in .env.example, with its default and a one-line meaning above it', () => {
    const lines = read('.env.example').split('\n');
    const problems: string[] = [];
    for (const name of variables) {
      const at = lines.findIndex((l) => new RegExp(`^#?\\s*${name}=`).test(l));
      if (at === -1) problems.push(`${name}: missing from .env.example`);
      else if (!/^#\s+\S/.test(lines[at - 1] ?? '') || new RegExp(`^#?\\s*[A-Z_]+=`).test(lines[at - 1]!.replace(/^#\s*/, ''))) problems.push(`${name}: no meaning on the line above`);
    }
    expect(problems).toEqual([]);
  });

  it("names each in the README's configuration table", () => {
    const readme = read('README.md');
    const start = readme.indexOf('### Configuration');
    expect(start).toBeGreaterThan(-1);
    const rest = readme.slice(start + 1);
    const section = rest.slice(0, rest.search(/\n##/) === -1 ? undefined : rest.search(/\n##/));
    const table = section.split('\n').filter((l) => l.startsWith('|')).join('\n');
    expect(variables.filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });
});
