#!/usr/bin/env node
// `npm test`: type-check, then jest. Suites that need Postgres use DATABASE_URL when it is set
// (each suite creates and drops its own database on that server); otherwise this script starts a
// throwaway embedded Postgres for the run and removes it afterwards.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const jestArgs = process.argv.slice(2);

function run(cmd, args, env) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main() {
  if (!process.env.SKIP_TYPECHECK) {
    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], { cwd: root, stdio: 'inherit' });
    if (tsc.status !== 0) {
      console.error('Type check failed.');
      return tsc.status ?? 1;
    }
  }
  const env = { ...process.env };
  let embedded = null;
  let tmp = null;
  if (!env.DATABASE_URL) {
    require('./register-ts');
    const { startEmbeddedPostgres } = require('../libs/db/src/embedded-postgres');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hindsight-test-'));
    console.log('DATABASE_URL is not set: starting a throwaway embedded PostgreSQL for the tests.');
    embedded = await startEmbeddedPostgres({ dataDir: tmp, database: 'hindsight', persistent: false, role: 'npm test', log: (line) => console.log(line) });
    env.DATABASE_URL = embedded.url;
  }
  const results = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hindsight-jest-')), 'results.json');
  try {
    const jest = require.resolve('jest/bin/jest');
    const code = await run(process.execPath, [jest, ...jestArgs, '--json', `--outputFile=${results}`], env);
    // One plain closing line, whatever jest's reporter printed above it.
    if (fs.existsSync(results)) {
      const r = JSON.parse(fs.readFileSync(results, 'utf8'));
      // A suite that fails to run (a module it cannot load) counts as a failure, not as nothing.
      const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
      console.log(`\ntests: ${r.numPassedTests} passed, ${failed} failed, ${r.numPendingTests} skipped`);
    }
    return code;
  } finally {
    fs.rmSync(path.dirname(results), { recursive: true, force: true });
    if (embedded) await embedded.stop().catch((e) => console.error(e));
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`npm test could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
