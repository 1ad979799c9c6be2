#!/usr/bin/env node
// `npm start`: runs the app straight from its TypeScript sources (transpiled in memory by swc,
// about a second), so a fresh clone starts without a build step. `npm run build` followed by
// `npm run start:prod` runs the type-checked output in dist/ instead.
require('./load-env');
require('./register-ts');
require('../apps/api/src/main.ts');
