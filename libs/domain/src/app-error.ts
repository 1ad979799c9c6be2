/**
 * The one error type of the domain. Services throw it; the API maps `code` to GraphQL
 * `extensions.code` in a single filter, so resolvers never catch.
 */
export const ERROR_CODES = [
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'CONFLICT',
  'FORBIDDEN',
  'UNAUTHENTICATED',
  'TOO_MANY_REQUESTS',
  'QUERY_TOO_COMPLEX',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldProblem {
  /** Dotted path of the offending field, e.g. `timeline[3].precision` or `first`. */
  field: string;
  reason: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra, machine-readable facts for the client (field problems, current version, ...). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  static notFound(what: string, id: string): AppError {
    return new AppError('NOT_FOUND', `${what} "${id}" does not exist.`, { what, id });
  }

  static badInput(problems: FieldProblem[]): AppError {
    const text = problems.map((p) => `${p.field}: ${p.reason}`).join('; ');
    return new AppError('BAD_USER_INPUT', text, { problems, field: problems[0]?.field });
  }

  static badField(field: string, reason: string): AppError {
    return AppError.badInput([{ field, reason }]);
  }
}
