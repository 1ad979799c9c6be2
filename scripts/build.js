#!/usr/bin/env node
// `npm run build [-- --out-dir <dir>]`: the type-checked compile into dist/, plus copies of the
// files the compiled app reads at run time, so the build runs on its own (with production
// dependencies installed beside it) and never reaches back into the source tree:
//   prisma/migrations/ and seeds/            → <out>/prisma/migrations, <out>/seeds
//   apps/api/src/pages/assets/ (css, js)      → <out>/apps/api/src/pages/assets
//   the explorer's browser bundles (graphiql, react) from node_modules
//                                             → <out>/apps/api/src/explorer/assets
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const at = argv.indexOf('--out-dir');
const out = path.resolve(root, at === -1 ? 'dist' : argv[at + 1]);

const tsc = spawnSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', out, '--tsBuildInfoFile', path.join(out, '.tsbuildinfo')],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) {
  console.error('build: the TypeScript compile failed.');
  process.exit(tsc.status ?? 1);
}

function copyDir(from, to) {
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(path.join(root, from), to, { recursive: true });
}
copyDir('prisma/migrations', path.join(out, 'prisma', 'migrations'));
copyDir('seeds', path.join(out, 'seeds'));
copyDir('apps/api/src/pages/assets', path.join(out, 'apps', 'api', 'src', 'pages', 'assets'));

// The list of explorer files lives in the app; read it from the compiled module.
const { EXPLORER_ASSETS, BUNDLED_EXPLORER_ASSETS_DIR } = require(path.join(out, 'apps', 'api', 'src', 'explorer', 'explorer.plugin.js'));
fs.rmSync(BUNDLED_EXPLORER_ASSETS_DIR, { recursive: true, force: true });
fs.mkdirSync(BUNDLED_EXPLORER_ASSETS_DIR, { recursive: true });
for (const [name, asset] of Object.entries(EXPLORER_ASSETS)) {
  const pkgDir = path.dirname(require.resolve(`${asset.pkg}/package.json`, { paths: [root] }));
  fs.copyFileSync(path.join(pkgDir, asset.file), path.join(BUNDLED_EXPLORER_ASSETS_DIR, name));
}
console.log(`build: ${path.relative(root, out) || out}/ is ready (node ${path.relative(root, path.join(out, 'apps', 'api', 'src', 'main.js'))})`);
