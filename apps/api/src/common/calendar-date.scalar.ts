import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { echo } from '@hindsight/domain';
import { formatCalendarDate, parseCalendarDate } from '@hindsight/tracking';

export const CALENDAR_DATE_SCALAR_NAME = 'Date';

/** Why a Date argument is refused, or null when it is a real calendar day YYYY-MM-DD. */
export function calendarDateProblem(value: unknown): string | null {
  if (typeof value === 'string' && parseCalendarDate(value) !== null) return null;
  return `expected a calendar date YYYY-MM-DD such as 2026-03-01; got ${echo(value)}`;
}

/**
 * A day without a time or a zone (a due date). Resolvers receive and return the `YYYY-MM-DD`
 * text; the database keeps a `date`.
 *
 * As with DateTime, parseLiteral lets any string literal through so that the input guard
 * (input-guard.plugin.ts) refuses a bad one with the argument's path named; values in variables
 * are parsed strictly here.
 */
export const CalendarDateScalar = new GraphQLScalarType<string | null, string | null>({
  name: CALENDAR_DATE_SCALAR_NAME,
  description: 'A calendar day, YYYY-MM-DD, without a time or a zone; impossible days (2026-02-30) are refused.',
  parseValue(value) {
    const problem = calendarDateProblem(value);
    if (problem) throw new GraphQLError(problem, { extensions: { code: 'BAD_USER_INPUT' } });
    return value as string;
  },
  serialize(value) {
    if (value instanceof Date) return formatCalendarDate(value);
    return typeof value === 'string' && parseCalendarDate(value) !== null ? value : null;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('expected a string with a calendar date YYYY-MM-DD such as 2026-03-01');
    return ast.value;
  },
});
