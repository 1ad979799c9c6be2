import Module from 'node:module';
import path from 'node:path';

/**
 * Resolves `@hindsight/<lib>` in the compiled output, where tsconfig `paths` no longer apply:
 * `dist/apps/api/src/*.js` → `dist/libs/<lib>/src/index.js`. Jest maps the same names itself.
 * Every process entry point imports this module first.
 */
const libsDir = path.resolve(__dirname, '..', '..', '..', 'libs');
type Resolve = (request: string, ...rest: unknown[]) => string;
const moduleWithResolve = Module as unknown as { _resolveFilename: Resolve };
const original = moduleWithResolve._resolveFilename;
moduleWithResolve._resolveFilename = function resolveAlias(this: unknown, request: string, ...rest: unknown[]) {
  const match = /^@hindsight\/([a-z-]+)$/.exec(request);
  return original.call(this, match ? path.join(libsDir, match[1]!, 'src', 'index') : request, ...rest);
};
