import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { echo, ISO_INSTANT_EXAMPLE, parseIsoInstant } from '@hindsight/domain';

export const DATE_TIME_SCALAR_NAME = 'DateTime';

/** Why a DateTime argument is refused, or null when it is a real ISO 8601 instant with a zone. */
export function dateTimeProblem(value: unknown): string | null {
  if (typeof value === 'string' && parseIsoInstant(value) !== null) return null;
  return `expected a real ISO 8601 instant with a zone such as ${ISO_INSTANT_EXAMPLE}; got ${echo(value)}`;
}

/**
 * Replaces Nest's DateTime scalar, which hands `new Date(value)` to resolvers: "yesterday"
 * became an Invalid Date (a database error later) and 2026-02-30 became 2 March.
 *
 * parseLiteral lets any string literal through as a Date (possibly invalid) because graphql-js
 * validates literals before the input guard runs and would report them without the argument's
 * name; the input guard (input-guard.plugin.ts) refuses the bad ones with the field named,
 * before execution. Values that arrive in variables are parsed strictly here as well.
 */
export const DateTimeScalar = new GraphQLScalarType<Date | null, string | null>({
  name: DATE_TIME_SCALAR_NAME,
  description: `An instant in ISO 8601 with a zone, such as ${ISO_INSTANT_EXAMPLE}; impossible dates (2026-02-30) are refused.`,
  parseValue(value) {
    const problem = dateTimeProblem(value);
    if (problem) throw new GraphQLError(problem, { extensions: { code: 'BAD_USER_INPUT' } });
    return parseIsoInstant(value as string);
  },
  serialize(value) {
    return value instanceof Date ? value.toISOString() : null;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError(`expected a string with an ISO 8601 instant such as ${ISO_INSTANT_EXAMPLE}`);
    return parseIsoInstant(ast.value) ?? new Date(Number.NaN);
  },
});
