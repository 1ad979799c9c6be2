/** Stable codes callers can switch on (the API maps them to its own error codes). */
export const ModelErrorCode = {
  InvalidSpec: 'INVALID_SPEC',
  InvalidParameter: 'INVALID_PARAMETER',
  UnknownScenario: 'UNKNOWN_SCENARIO',
  EventBudgetExceeded: 'EVENT_BUDGET_EXCEEDED',
  WallTimeExceeded: 'WALL_TIME_EXCEEDED',
  QueueFull: 'QUEUE_FULL',
  RunnerClosed: 'RUNNER_CLOSED',
  WorkerFailed: 'WORKER_FAILED',
  /** The run's worker thread reached its heap limit and was stopped; the other runs go on. */
  OutOfMemory: 'MODEL_RUN_OUT_OF_MEMORY',
  /** The run finished, but its result is larger than the runner accepts. */
  ResultTooLarge: 'MODEL_RESULT_TOO_LARGE',
} as const;

export type ModelErrorCode = (typeof ModelErrorCode)[keyof typeof ModelErrorCode];

export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

export interface SpecIssue {
  /** Dotted path to the offending field, e.g. `stations[1].slots`. */
  path: string;
  /** What was expected and what was found. */
  reason: string;
}

/** The spec is not a valid model; `issues` lists every problem found, `path`/`reason` the first. */
export class ModelSpecError extends ModelError {
  readonly path: string;
  readonly reason: string;

  constructor(readonly issues: SpecIssue[]) {
    const first = issues[0] ?? { path: '', reason: 'invalid spec' };
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(ModelErrorCode.InvalidSpec, `${first.path}: ${first.reason}${more}`);
    this.name = 'ModelSpecError';
    this.path = first.path;
    this.reason = first.reason;
  }
}

/** A parameter override (or a scenario's) is unknown or outside its declared range. */
export class ModelParameterError extends ModelError {
  constructor(
    readonly parameter: string,
    readonly path: string,
    readonly reason: string,
    readonly allowed: { min: number; max: number; unit: string } | null = null,
  ) {
    super(ModelErrorCode.InvalidParameter, `${path}: ${reason}`);
    this.name = 'ModelParameterError';
  }
}

/** A run could not complete: budget exhausted, runner saturated or closed, worker lost. */
export class ModelRunError extends ModelError {
  constructor(
    code: ModelErrorCode,
    message: string,
    readonly details: Record<string, number | string> = {},
  ) {
    super(code, message);
    this.name = 'ModelRunError';
  }
}

/** Plain-object form, so an error survives the trip from a worker thread. */
export interface ModelErrorData {
  name: string;
  code: ModelErrorCode;
  message: string;
  issues?: SpecIssue[];
  parameter?: string;
  path?: string;
  reason?: string;
  allowed?: { min: number; max: number; unit: string } | null;
  details?: Record<string, number | string>;
}

export function toModelErrorData(error: unknown): ModelErrorData {
  if (error instanceof ModelSpecError) {
    return { name: error.name, code: error.code, message: error.message, issues: error.issues };
  }
  if (error instanceof ModelParameterError) {
    return {
      name: error.name,
      code: error.code,
      message: error.message,
      parameter: error.parameter,
      path: error.path,
      reason: error.reason,
      allowed: error.allowed,
    };
  }
  if (error instanceof ModelRunError) {
    return { name: error.name, code: error.code, message: error.message, details: error.details };
  }
  if (error instanceof ModelError) {
    return { name: error.name, code: error.code, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { name: 'ModelRunError', code: ModelErrorCode.WorkerFailed, message };
}

export function fromModelErrorData(data: ModelErrorData): ModelError {
  switch (data.name) {
    case 'ModelSpecError':
      return new ModelSpecError(data.issues ?? [{ path: data.path ?? '', reason: data.message }]);
    case 'ModelParameterError':
      return new ModelParameterError(data.parameter ?? '', data.path ?? '', data.reason ?? data.message, data.allowed ?? null);
    case 'ModelRunError':
      return new ModelRunError(data.code, data.message, data.details ?? {});
    default:
      return new ModelError(data.code, data.message);
  }
}
