/** Shared constants of the flow runtime: statuses, event kinds, visit states. */

export const Status = {
  ok: 0,
  throttled: 429,
  error: 500,
  stopped: 502,
  shed: 503,
  timeout: 504,
} as const;

export const OK = 0;
/** Masses below this are dropped (fluid splits of negligible size). */
export const EPS = 1e-9;
export const STEP_LOOKASIDE = -2;
export const MAX_GUARD_DEPTH = 64;
export const MAX_SYNC_DEPTH = 32;

/** Event kinds dispatched by FlowSimulation. */
export const EV_SERVICE_END = 1;
export const EV_LINGER_END = 2;
export const EV_TIMEOUT = 3;
export const EV_RETRY = 4;
export const EV_TICK = 5;
export const EV_SOURCE = 6;
export const EV_SOURCE_RATE = 7;
export const EV_INJECT = 8;
export const EV_FLUSH = 9;
export const EV_CONTROL = 10;
export const EV_QUEUE_DEADLINE = 11;
export const EV_VISIT_FLUSH = 12;
export const EV_WAIT_DEADLINE = 13;
export const EV_RETRY_FLUSH = 14;
export const EV_RATE_START = 15;

/** Where a visit is in its station. */
export const S_NEW = 0;
export const S_QUEUED = 1;
export const S_SERVICE = 2;
export const S_CALLING = 3;
export const S_LINGER = 4;
export const S_HUNG = 5;
export const S_DONE = 6;
