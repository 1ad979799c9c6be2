#!/usr/bin/env node
// Runs a command-line tool of the app (apps/api/src/cli/<name>.ts) straight from source:
// `node scripts/cli.js token create --name ci --role editor`. The npm scripts wrap it.
require('./load-env');
require('./register-ts');
const path = require('node:path');

const [name, ...argv] = process.argv.slice(2);
if (!name || !/^[a-z-]+$/.test(name)) {
  console.error('usage: node scripts/cli.js <command> [args…]');
  process.exit(2);
}
const entry = path.join(__dirname, '..', 'apps', 'api', 'src', 'cli', `${name}.ts`);
let mod;
try {
  mod = require(entry);
} catch (error) {
  if (error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(entry)) {
    console.error(`unknown command "${name}"`);
    process.exit(2);
  }
  throw error;
}
Promise.resolve(mod.main(argv)).then(
  (code) => process.exit(typeof code === 'number' ? code : 0),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
