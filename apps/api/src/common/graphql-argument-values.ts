import type * as GraphqlValues from 'graphql/execution/values';

/**
 * graphql-js 16 works out a field's arguments before calling its resolver, for every field of
 * every object in an answer, whether the field defines arguments or not: each call makes two
 * objects with `Object.create(null)` (which V8 builds as dictionaries) and a plain copy of one.
 * On the incident list that was the largest single allocation of a request (22 % of its bytes,
 * measured with V8's sampling heap profiler), and it brings the next young collection closer for
 * every request.
 *
 * For a field that defines no argument the answer is always empty (validation refuses an argument
 * a field does not define before anything runs), so such a field is given one shared empty
 * object instead: a plain object, as graphql-js's own, but frozen, so that no resolver can write
 * into what every other one reads. Fields with arguments go through graphql-js unchanged.
 *
 * graphql-js's executor calls `getArgumentValues` through its module's exports (CommonJS, the
 * build Node loads for both `require` and `import` of graphql 16), which is what this replaces.
 * `graphql-argument-values.spec.ts` beside this file fails if an upgrade makes the replacement
 * miss; docs/benchmarks.md ("Fewer objects kept and made per read", change 2) has the figures.
 */
export const NO_ARGUMENTS: Readonly<Record<string, unknown>> = Object.freeze({});

type Coerce = typeof GraphqlValues.getArgumentValues;
const values = require('graphql/execution/values') as { getArgumentValues: Coerce };
const coerce = values.getArgumentValues;
values.getArgumentValues = (def, node, variableValues) => (def.args.length === 0 ? (NO_ARGUMENTS as Record<string, unknown>) : coerce(def, node, variableValues));
