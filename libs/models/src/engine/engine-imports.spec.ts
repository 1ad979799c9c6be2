import fs from 'node:fs';
import path from 'node:path';

/** Value imports (not `import type`) between the engine's modules, by file. */
function valueImports(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'\.\/([^']+)';/gm)) {
      const allTypes = m[1] !== undefined || m[2].split(',').every((s) => s.trim().startsWith('type ') || s.trim() === '');
      if (!allTypes) deps.push(`${m[3]}.ts`);
    }
    graph.set(file, deps);
  }
  return graph;
}

describe('engine modules', () => {
  it('have no import cycle at run time (type-only imports aside)', () => {
    const graph = valueImports(__dirname);
    const cycles: string[] = [];
    const state = new Map<string, number>();
    const visit = (f: string, trail: string[]): void => {
      if (state.get(f) === 2) return;
      if (state.get(f) === 1) {
        cycles.push([...trail.slice(trail.indexOf(f)), f].join(' -> '));
        return;
      }
      state.set(f, 1);
      for (const d of graph.get(f) ?? []) visit(d, [...trail, f]);
      state.set(f, 2);
    };
    for (const f of graph.keys()) visit(f, []);
    expect(cycles).toEqual([]);
    expect(graph.get('mean-field.port.ts')).not.toContain('flow.runtime.ts');
  });
});
