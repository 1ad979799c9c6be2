import path from 'node:path';
import { HttpException } from '@nestjs/common';
import { GraphQLError } from 'graphql';
import { AppError, ERROR_CODES, type ErrorCode } from '@hindsight/domain';
import { ImportError } from '@hindsight/postmortem-parser';
import { ModelError, ModelErrorCode, ModelParameterError, ModelSpecError } from '@hindsight/models';
import { toGlobalId, type NodeType } from '../../node/global-id';

/**
 * The one translation from every error family of the libs to an AppError the client may see:
 * AppError (domain), ImportError (importer), ModelError (model engine), database errors
 * (Prisma with the pg adapter, or pg itself) and HTTP exceptions. GraphQL (formatError) and
 * the HTTP filters both call it, so a code means the same thing everywhere.
 *
 * `null` means the error is a fault: the caller logs it and answers INTERNAL_SERVER_ERROR.
 */
export function toAppError(error: unknown): AppError | null {
  const mapped = mapError(error);
  return mapped ? inApiTerms(mapped) : null;
}

function mapError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof ImportError) return fromImportError(error);
  if (error instanceof ModelError) return fromModelError(error);
  if (error instanceof HttpException) return fromHttpException(error);
  return fromDatabaseError(error);
}

/** What the libs' NOT_FOUND names in words, as the API's type names; the types with global ids are Nodes. */
const TYPE_OF: Record<string, string> = {
  Actionable: 'Actionable',
  Incident: 'Incident',
  Pattern: 'Pattern',
  Account: 'Account',
  'Timeline event': 'TimelineEvent',
  'Causal factor': 'CausalFactor',
  'Causal link': 'CausalLink',
  'API token': 'ApiToken',
  'Model run': 'ModelRun',
  'Model spec': 'ModelSpecVersion',
};
const NODE_OF: Record<string, NodeType> = {
  Actionable: 'Actionable',
  Incident: 'Incident',
  TimelineEvent: 'TimelineEvent',
  CausalFactor: 'CausalFactor',
  CausalLink: 'CausalLink',
  ApiToken: 'ApiToken',
  ModelRun: 'ModelRun',
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Fields whose stored values are the lower-case names behind the API's enums. */
const ENUM_FIELDS = new Set(['status', 'priority', 'precision', 'kind', 'role', 'format', 'action', 'entity']);

/**
 * The libs speak the database's language (`done`, row uuids); clients read the API's (`DONE`,
 * global ids). Every error passes here, so every value in `extensions` is in the API's terms:
 * enum values as the schema names them, record ids as the global ids the API hands out, and the
 * kind of record NOT_FOUND names (`what`) as the schema's type name.
 */
function inApiTerms(error: AppError): AppError {
  const details = error.details as Record<string, unknown>;
  if (error.code === 'NOT_FOUND' && typeof details.what === 'string') {
    const what = TYPE_OF[details.what] ?? details.what;
    if (typeof details.id === 'string' && UUID.test(details.id) && NODE_OF[what]) {
      const id = toGlobalId(NODE_OF[what]!, details.id);
      return new AppError(error.code, error.message.split(details.id).join(id), { ...details, what, id });
    }
    return new AppError(error.code, error.message, { ...details, what });
  }
  if (error.code === 'CONFLICT' && details.current && typeof details.current === 'object') {
    const current = apiValues(details.current) as Record<string, unknown>;
    const type = /^(Actionable|Incident) /.exec(error.message)?.[1] as NodeType | undefined;
    if (type && typeof current.id === 'string' && UUID.test(current.id)) current.id = toGlobalId(type, current.id);
    const message = type && typeof (details.current as { id?: unknown }).id === 'string' ? error.message.split((details.current as { id: string }).id).join(String(current.id)) : error.message;
    return new AppError(error.code, message, { ...details, current });
  }
  return error;
}

function apiValues(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return key && ENUM_FIELDS.has(key) && /^[a-z][a-z0-9_]*$/.test(value) ? value.toUpperCase() : value;
  if (Array.isArray(value)) return value.map((v) => apiValues(v, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, apiValues(v, k)]));
  return value;
}

/** The HTTP status of each error code, for routes that answer HTTP rather than GraphQL. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  BAD_USER_INPUT: 400,
  CONFLICT: 409,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  TOO_MANY_REQUESTS: 429,
  QUERY_TOO_COMPLEX: 400,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
};

export const INTERNAL_MESSAGE = 'Internal error; the server log has the details.';

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
}

function fromImportError(error: ImportError): AppError {
  const limit = typeof error.details.maxBytes === 'number' ? error.details.maxBytes : undefined;
  const field = typeof error.details.field === 'string' ? error.details.field : 'document';
  return new AppError('BAD_USER_INPUT', field === 'document' ? `document: ${error.message}` : error.message, {
    field,
    reason: error.code,
    problems: [{ field, reason: error.message }],
    ...(limit === undefined ? {} : { limit }),
  });
}

function fromModelError(error: ModelError): AppError | null {
  if (error instanceof ModelSpecError) return AppError.badInput(error.issues.map((i) => ({ field: specField(i.path), reason: i.reason })));
  if (error instanceof ModelParameterError) {
    const field = `parameters.${error.parameter}`;
    return new AppError('BAD_USER_INPUT', `${field}: ${error.reason}`, {
      field,
      parameter: error.parameter,
      allowed: error.allowed,
      problems: [{ field, reason: error.reason }],
    });
  }
  switch (error.code) {
    case ModelErrorCode.UnknownScenario:
      return AppError.badField('scenario', error.message);
    case ModelErrorCode.InvalidSpec:
      return AppError.badField('spec', error.message);
    case ModelErrorCode.QueueFull:
      return new AppError('TOO_MANY_REQUESTS', 'Every model worker is busy and the wait queue is full; try again in a moment.', { retryAfterSeconds: 1 });
    case ModelErrorCode.RunnerClosed:
      return new AppError('SERVICE_UNAVAILABLE', 'The model runner is shutting down; try again in a moment.', { reason: 'SERVER_BUSY', retryAfterSeconds: 1 });
    default:
      return null;
  }
}

/** The validator names the spec's root `$`; clients name the argument, `spec`. */
function specField(path: string): string {
  const rest = path.replace(/^\$\.?/, '');
  return rest === '' ? 'spec' : rest.startsWith('[') ? `spec${rest}` : `spec.${rest}`;
}

function fromHttpException(error: HttpException): AppError {
  const status = error.getStatus();
  if (status === 413) return new AppError('BAD_USER_INPUT', 'The request body is larger than the server accepts.', { field: 'body', reason: 'TOO_LARGE' });
  const code = (Object.entries(HTTP_STATUS).find(([, s]) => s === status)?.[0] ?? (status < 500 ? 'BAD_USER_INPUT' : 'INTERNAL_SERVER_ERROR')) as ErrorCode;
  return new AppError(code, code === 'INTERNAL_SERVER_ERROR' ? INTERNAL_MESSAGE : error.message);
}

/** Postgres SQLSTATEs that mean the value was refused, not that the server failed. */
const BAD_VALUE_STATES: Record<string, string> = {
  '22021': 'contains a character the database cannot store (such as NUL)',
  '22P05': 'contains a character the database cannot store',
  '22001': 'is too long',
  '22003': 'is out of range',
  '22007': 'is not a valid date or time',
  '22008': 'is not a valid date or time',
  '22P02': 'is not in the expected format',
};

interface DatabaseFault {
  kind?: string;
  code?: string;
  message?: string;
}

/** The driver-level cause, whichever layer (Prisma known error, driver adapter error, pg) threw. */
function databaseFault(error: unknown): DatabaseFault | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { name?: string; code?: unknown; message?: unknown; meta?: { driverAdapterError?: { cause?: DatabaseFault } }; cause?: unknown };
  const adapterCause = e.meta?.driverAdapterError?.cause;
  // Prisma's own code (P2002, …) says more than the adapter's generic P2010 wrapper.
  if (adapterCause) return { ...adapterCause, code: typeof e.code === 'string' && e.code !== 'P2010' ? e.code : (adapterCause.code ?? adapterCause.kind) };
  if (e.name === 'DriverAdapterError' && typeof e.cause === 'object' && e.cause) return e.cause as DatabaseFault;
  if (typeof e.code === 'string') return { code: e.code, message: typeof e.message === 'string' ? e.message : undefined };
  if (typeof e.message === 'string') return { message: e.message };
  return null;
}

const TIMEOUT_MESSAGES = /Query read timeout|timeout exceeded when trying to connect|Connection terminated due to connection timeout|canceling statement due to statement timeout/i;
const UNREACHABLE_MESSAGES = /ECONNREFUSED|Connection terminated unexpectedly|Can't reach database server|the database system is (starting up|shutting down)/i;

function fromDatabaseError(error: unknown): AppError | null {
  const fault = databaseFault(error);
  if (!fault) return null;
  const { kind, code = '', message = '' } = fault;
  const timeout =
    code === '57014' || code === 'P1008' || code === 'P2024' || kind === 'SocketTimeout' || kind === 'TransactionTimedOut' || TIMEOUT_MESSAGES.test(message);
  if (timeout) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database did not answer in time; try again in a moment.', { reason: 'DATABASE_TIMEOUT', retryAfterSeconds: 1 });
  }
  const unreachable =
    ['P1001', 'P1002', 'P1017', 'ECONNREFUSED', 'ECONNRESET', '57P01', '57P02', '57P03', '53300'].includes(code) ||
    code.startsWith('08') ||
    ['DatabaseNotReachable', 'ConnectionClosed', 'TooManyConnections', 'DatabaseDoesNotExist'].includes(kind ?? '') ||
    UNREACHABLE_MESSAGES.test(message);
  if (unreachable) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; try again in a moment.', { reason: 'DATABASE_UNAVAILABLE', retryAfterSeconds: 1 });
  }
  const refused = BAD_VALUE_STATES[code];
  if (refused) return new AppError('BAD_USER_INPUT', `A value ${refused}; nothing was written.`, { reason: `SQLSTATE_${code}` });
  if (code === 'P2002' || code === '23505' || kind === 'UniqueConstraintViolation') {
    const target = (error as { meta?: { target?: unknown } }).meta?.target;
    return new AppError('CONFLICT', 'Another change created the same key at the same time; read the record again and retry.', {
      constraint: String(target ?? ''),
    });
  }
  if (code === 'P2003' || code === 'P2025' || code === '23503' || kind === 'ForeignKeyConstraintViolation') {
    return new AppError('CONFLICT', 'The record changed while this write was in progress; read it again and retry.');
  }
  if (code === '40001' || code === '40P01' || kind === 'TransactionWriteConflict') {
    return new AppError('CONFLICT', 'The write collided with another one; read the record again and retry.');
  }
  return null;
}

/** Longest message a client receives; longer ones are cut (a message may quote the caller's input). */
const MAX_MESSAGE_LENGTH = 2_000;
/** Longest string inside `extensions`. */
const MAX_DETAIL_STRING = 500;
const MAX_PROBLEMS = 20;

export function clip(text: string, max = MAX_MESSAGE_LENGTH): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** Details as sent: long strings cut, long problem lists shortened, so no error echoes a megabyte. */
export function clipDetails(details: Record<string, unknown>): Record<string, unknown> {
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return clip(value, MAX_DETAIL_STRING);
    if (depth > 4 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.slice(0, MAX_PROBLEMS).map((v) => walk(v, depth + 1));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, depth + 1)]));
  };
  return walk(details, 0) as Record<string, unknown>;
}

const root = process.cwd();

/** One log line for a fault: name, message, and the first frames with paths relative to the project. */
export function describeFault(error: unknown): string {
  if (!(error instanceof Error)) return clip(String(error), 500);
  const frames = (error.stack ?? '')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ''))
    .filter((l) => !l.includes('node_modules') && !l.startsWith('node:'))
    .slice(0, 4)
    .map((l) => l.split(root + path.sep).join(''));
  const cause = (error as { cause?: unknown }).cause;
  const because = cause instanceof Error ? ` (cause: ${clip(cause.message, 200)})` : '';
  return `${error.name}: ${clip(error.message.replace(/\s+/g, ' ').trim(), 500)}${because}${frames.length > 0 ? ` | at ${frames.join(' < ')}` : ''}`;
}

/** The original error behind GraphQL's wrappers (located errors, validation errors). */
export function originalOf(error: unknown): unknown {
  let current = error;
  for (let i = 0; i < 5 && current instanceof GraphQLError && current.originalError; i++) current = current.originalError;
  return current;
}
