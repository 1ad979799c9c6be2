import fs from 'node:fs';
import path from 'node:path';

/** Value imports (not `import type`) between the engine's modules, by file relative to this folder. */
function valueImports(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (sub: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
        const text = fs.readFileSync(path.join(dir, rel), 'utf8');
        const deps: string[] = [];
        for (const m of text.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'(\.{1,2}\/[^']+)';/gm)) {
          const allTypes = m[1] !== undefined || m[2].split(',').every((s) => s.trim().startsWith('type ') || s.trim() === '');
          const target = path.normalize(path.join(sub, `${m[3]}.ts`));
          if (!allTypes && !target.startsWith('..')) deps.push(target);
        }
        graph.set(path.normalize(rel), deps);
      }
    }
  };
  walk('.');
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
    // The blocks reach the modes only through the FlowMode interface.
    for (const block of ['station.ts', 'gate.ts', 'source.ts', 'visit.ts', 'call-edge.ts', 'cache.ts', 'injector.ts']) {
      expect([block, (graph.get(block) ?? []).filter((d) => d.startsWith('modes'))]).toEqual([block, []]);
    }
  });

  it('no block asks which mode it runs in: the differences live in the two FlowMode classes', () => {
    for (const file of fs.readdirSync(__dirname).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))) {
      const code = fs
        .readFileSync(path.join(__dirname, file), 'utf8')
        .split('\n')
        .filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l));
      expect([file, code.filter((l) => /\.fluid\b|mode\.kind/.test(l)).length]).toEqual([file, 0]);
    }
  });

  it('keep no counters across runs: no static field of the runtime is written', () => {
    const files = [...fs.readdirSync(__dirname).map((f) => f), ...fs.readdirSync(path.join(__dirname, 'modes')).map((f) => `modes/${f}`)].filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
    const mutableStatics = files.flatMap((f) =>
      fs
        .readFileSync(path.join(__dirname, f), 'utf8')
        .split('\n')
        .filter((l) => /^\s*(private |protected |public )?static (?!readonly\b)\w+\s*[=:]/.test(l))
        .map((l) => `${f}: ${l.trim()}`),
    );
    expect(mutableStatics).toEqual([]);
  });
});
