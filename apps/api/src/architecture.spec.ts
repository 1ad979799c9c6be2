import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The dependency rules of the layout, checked on every test run: apps → libs, never back; each
 * lib imports only what its README allows. A lint rule in test form, so it runs wherever the
 * tests run.
 */
const root = path.resolve(__dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' || entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2] ?? m[3])!,
  );
}

/** Which packages and libs each lib may import (node built-ins are always allowed). */
const ALLOWED: Record<string, (spec: string) => boolean> = {
  models: () => false,
  domain: () => false,
  'postmortem-parser': (s) => ['@hindsight/domain', 'yaml', 'marked', 'tinyld', 'chrono-node', 'smol-toml'].includes(s),
  tracking: (s) => ['@hindsight/domain', '@hindsight/db', '@hindsight/incidents', '@nestjs/common', 'dataloader', 'bcryptjs'].includes(s),
  drafts: (s) => ['@hindsight/domain', '@hindsight/db', '@hindsight/incidents', '@hindsight/postmortem-parser', '@hindsight/tracking', '@nestjs/common'].includes(s),
  // The engine's number formatter, so the charts print figures exactly as the CLI and checks do.
  web: (s) => ['@hindsight/domain', '@hindsight/models', 'marked', 'sanitize-html'].includes(s),
  jobs: (s) => ['pg-boss'].includes(s),
  notifications: (s) => ['@hindsight/db', '@hindsight/jobs', '@hindsight/tracking', '@nestjs/common'].includes(s),
  'tracker-sync': (s) => ['@hindsight/db', '@hindsight/domain', '@hindsight/jobs', '@hindsight/tracking', '@nestjs/common', '@octokit/rest', 'jira.js'].includes(s),
  // Templates generate engine specs from incident documents; libs/models never imports them.
  'model-templates': (s) => ['@hindsight/domain', '@hindsight/models'].includes(s),
  'model-runs': (s) => ['@hindsight/domain', '@hindsight/db', '@hindsight/models', '@nestjs/common', 'dataloader', 'pg-boss'].includes(s),
};

/** Packages a lib's tests (`*.spec.ts`) may import beside what the lib itself may. */
const TEST_TOOLING = ['typescript'];

const libs = fs.readdirSync(path.join(root, 'libs')).filter((name) => fs.existsSync(path.join(root, 'libs', name, 'src')));

describe('architecture', () => {
  it.each(libs)('libs/%s never reaches into apps/ or into another lib by relative path', (lib) => {
    const libRoot = path.join(root, 'libs', lib);
    const offenders = sourceFiles(path.join(libRoot, 'src')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('.'))
        .filter((spec) => !path.resolve(path.dirname(file), spec).startsWith(libRoot + path.sep) && !/\/(test|bench)\//.test(spec))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it.each(Object.keys(ALLOWED).filter((lib) => libs.includes(lib)))('libs/%s imports only what it is allowed to', (lib) => {
    const allowed = ALLOWED[lib]!;
    const offenders = sourceFiles(path.join(root, 'libs', lib, 'src')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:') && !allowed(spec))
        // A lib's own tests may use the test tooling (the TypeScript compiler reads the spec types).
        .filter((spec) => !(file.endsWith('.spec.ts') && TEST_TOOLING.includes(spec)))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('catches a forbidden import (the checker itself works)', () => {
    const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arch-')), 'probe.ts');
    expect(ALLOWED.models!('@nestjs/common')).toBe(false);
    fs.writeFileSync(probe, "import { Injectable } from '@nestjs/common';\n");
    try {
      expect(importsOf(probe)).toEqual(['@nestjs/common']);
    } finally {
      fs.rmSync(probe);
    }
  });
});
