// Lets plain-node scripts require the project's TypeScript sources directly (transpiled in
// memory by @swc/core), so they need no build step. Only for tooling, never for the app.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const swc = require('@swc/core');
const options = require('./swc-options');

const libs = path.resolve(__dirname, '..', 'libs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const m = /^@hindsight\/([a-z-]+)$/.exec(request);
  return resolve.call(this, m ? path.join(libs, m[1], 'src', 'index.ts') : request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};
