/**
 * The one error type of the domain. Services throw it (or their lib's own error type); the API
 * maps every family to GraphQL `extensions.code` in a single place, so resolvers never catch.
 *
 * Adding a code: append it to ERROR_CODES, give it a details shape in ErrorDetails, an HTTP
 * status in the API's table, and a row in the README's list of error codes.
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
  'INTERNAL_SERVER_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldProblem {
  /** Dotted path of the offending field, e.g. `timeline[3].precision` or `first`. */
  field: string;
  reason: string;
}

/** The machine-readable facts each code carries to the client, beside `code` and the message. */
export interface ErrorDetails {
  NOT_FOUND: { what?: string; id?: string; field?: string; renamedTo?: string };
  BAD_USER_INPUT: {
    /** The first offending field (an argument path such as `input.title` or `first`). */
    field?: string;
    /** Every problem found, each with its field and the reason. */
    problems?: FieldProblem[];
    /** A short machine-readable reason, e.g. an importer code such as `TOO_LARGE`. */
    reason?: string;
    parameter?: string;
    allowed?: { min: number; max: number; unit: string } | readonly string[] | null;
    from?: string;
    limit?: number;
    /** Actionables that still address a causal factor being deleted. */
    actionables?: string[];
  };
  CONFLICT: {
    field?: string;
    slug?: string;
    key?: string;
    name?: string;
    /** Stale writes: the version you sent, the stored one, and the stored values. */
    expectedVersion?: number;
    currentVersion?: number;
    current?: Record<string, unknown>;
    /** Unique constraint that a concurrent writer won. */
    constraint?: string;
  };
  /** `reason: CSRF_TOKEN_MISMATCH`: a session's form or request did not carry its synchroniser token. */
  FORBIDDEN: { requiredRole?: string; role?: string; reason?: 'CSRF_TOKEN_MISMATCH' };
  /** `reason: SESSION_ENDED`: a session cookie that was signed out, expired or never existed. */
  UNAUTHENTICATED: { requiredRole?: string; reason?: 'SESSION_ENDED' };
  TOO_MANY_REQUESTS: {
    retryAfterSeconds: number;
    /** A rate limit: requests allowed per window, counted per token or per client address. */
    limit?: number;
    per?: 'token' | 'address' | 'account';
    /** A per-client quota of stored model runs: runs allowed per window. */
    quota?: number;
    windowSeconds?: number;
    /** The bound on model runs waiting for a queue worker. */
    maxPending?: number;
  };
  QUERY_TOO_COMPLEX: {
    /** What was measured: `cost`, `aliases`, `depth`, `directives` or `tokens`. */
    measure: string;
    limit: number;
    /** The value found, under the measure's own name, when it was counted to the end. */
    [measured: string]: string | number;
  };
  SERVICE_UNAVAILABLE: {
    /** `DATABASE_TIMEOUT`: a query ran out of time; `DATABASE_UNAVAILABLE`: the database cannot be reached. */
    reason: 'DATABASE_TIMEOUT' | 'DATABASE_UNAVAILABLE' | 'SERVER_BUSY';
    retryAfterSeconds: number;
  };
  INTERNAL_SERVER_ERROR: Record<string, never>;
}

/** Longest echo of a caller's value inside an error message. */
export const MAX_ECHO_LENGTH = 80;

/** A caller's value as an error message may quote it: JSON-quoted, cut to MAX_ECHO_LENGTH characters. */
export function echo(value: unknown): string {
  const text = typeof value === 'string' ? value : String(JSON.stringify(value));
  const cut = text.length > MAX_ECHO_LENGTH ? `${text.slice(0, MAX_ECHO_LENGTH)}…` : text;
  const quoted = JSON.stringify(cut);
  return text.length > MAX_ECHO_LENGTH ? `${quoted} (${text.length} characters)` : quoted;
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly code: C,
    message: string,
    /** Extra, machine-readable facts for the client (field problems, current version, ...). */
    readonly details: ErrorDetails[C] = {} as ErrorDetails[C],
  ) {
    super(message);
    this.name = 'AppError';
  }

  /** `field` names the argument that held the id, e.g. `slug` or `input.incident`. */
  static notFound(what: string, id: string, field?: string): AppError<'NOT_FOUND'> {
    const shown = id.length > MAX_ECHO_LENGTH ? `${id.slice(0, MAX_ECHO_LENGTH)}…` : id;
    return new AppError('NOT_FOUND', `${what} ${echo(id)} does not exist.`, { what, id: shown, ...(field ? { field } : {}) });
  }

  static badInput(problems: FieldProblem[]): AppError<'BAD_USER_INPUT'> {
    const text = problems.map((p) => `${p.field}: ${p.reason}`).join('; ');
    return new AppError('BAD_USER_INPUT', text, { problems, field: problems[0]?.field });
  }

  static badField(field: string, reason: string): AppError<'BAD_USER_INPUT'> {
    return AppError.badInput([{ field, reason }]);
  }

  /** A write that named a version someone else has since replaced: nothing of it was written. */
  static staleVersion(what: string, id: string, expected: number, currentVersion: number, current: Record<string, unknown>): AppError<'CONFLICT'> {
    return new AppError(
      'CONFLICT',
      `${what} "${id}" is at version ${currentVersion}, not ${expected}: someone changed it since you read it. Nothing was written; review the current values and retry.`,
      { expectedVersion: expected, currentVersion, current },
    );
  }
}
