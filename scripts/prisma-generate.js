#!/usr/bin/env node
// Generates the Prisma client without network access. Every Prisma CLI command first looks for a
// native schema engine and downloads it when missing; `generate` never runs that engine, so we
// point the CLI at a stub that fails loudly if anything ever does try to run it. The stub is set
// only for this command: users' own `npx prisma …` calls keep Prisma's normal behaviour.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const stub = path.join(os.tmpdir(), `hindsight-schema-engine-stub-${process.getuid?.() ?? 'user'}`);
fs.writeFileSync(stub, '#!/bin/sh\necho "schema engine unavailable offline (stub used only for prisma generate)" >&2\nexit 1\n', { mode: 0o755 });

const cli = require.resolve('prisma/build/index.js', { paths: [root] });
const result = spawnSync(process.execPath, [cli, 'generate', '--no-hints'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: stub, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
  timeout: 120_000,
});
process.exit(result.status ?? 1);
