// One set of swc options for every place that transpiles the TypeScript sources without tsc:
// jest, and plain-node scripts (npm start, the CLIs, benchmarks). Decorator metadata is needed
// by Nest's dependency injection and code-first GraphQL.
module.exports = {
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
