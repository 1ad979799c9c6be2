import { ModelSpecError, type SpecIssue } from '../errors/model.error';
import { parseMetricName, type MetricNamespace } from '../engine/metric.catalog';
import { compileExpression, ExpressionSyntaxError, parseExpression } from './expression.parser';
import type { CacheSpec, CheckSpec, EmitSpec, EngineSpec, FigureSpec, LookasideSpec, ModelSpec, ParameterSpec, PoolSpec, ProbeSpec, ScenarioSpec, SlowdownSpec, SourceSpec, StationSpec } from './model-spec.types';
import {
  BACKOFF_FIELDS,
  CACHE_FIELDS,
  CALL_FIELDS,
  CHECK_FIELDS,
  DISTRIBUTION_FIELDS,
  EMIT_FIELDS,
  ENGINE_FIELDS,
  ENSEMBLE_CHECK_FIELDS,
  EVENT_COMMON_FIELDS,
  EVENT_FIELDS,
  EVENT_TIME_FIELDS,
  EVENT_TIME_MEASURE_FIELDS,
  EXCLUSIVE_CALL_FIELDS,
  EXPECT_FIELDS,
  FAILURE_FIELDS,
  FAILURE_TOLERANCE_FIELDS,
  FIGURE_FIELDS,
  FIGURE_MEASURE_FIELDS,
  LOOKASIDE_FIELDS,
  METRIC_MEASURE_FIELDS,
  PARAMETER_FIELDS,
  POLICY_FIELDS,
  POOL_FIELDS,
  PROBE_FIELDS,
  PROFILE_ENTRY_FIELDS,
  PROVENANCE_FIELDS,
  QUEUE_FIELDS,
  RETRY_BUDGET_FIELDS,
  SCENARIO_FIELDS,
  SLOWDOWN_FIELDS,
  SOURCE_FIELDS,
  SOURCE_QUOTE_FIELDS,
  STATION_FIELDS,
  TOP_FIELDS,
} from './spec.fields';
import { DEFAULT_FLUID_STEP, SpecLimits } from './spec.limits';

/** Numeric domains a field may require; parameter ranges are checked against them too. */
export interface Domain {
  label: string;
  min: number;
  minExclusive: boolean;
  max: number;
  integer: boolean;
}

const domain = (label: string, min: number, minExclusive: boolean, max: number, integer = false): Domain => ({
  label,
  min,
  minExclusive,
  max,
  integer,
});

export const Domains = {
  any: domain('a finite number', -Infinity, false, Infinity),
  positive: domain('a positive number', 0, true, Infinity),
  nonNegative: domain('a number >= 0', 0, false, Infinity),
  probability: domain('a number between 0 and 1', 0, false, 1),
  positiveInteger: domain('a positive integer', 1, false, Infinity, true),
  nonNegativeInteger: domain('a whole number >= 0', 0, false, Infinity, true),
  factor: domain('a number >= 1', 1, false, Infinity),
  // Sizes that cost memory or time, bounded (see spec.limits.ts).
  cacheNodes: domain(`a positive integer <= ${SpecLimits.cacheNodes} (engine limit)`, 1, false, SpecLimits.cacheNodes, true),
  replicas: domain(`a positive integer <= ${SpecLimits.replicas} (engine limit)`, 1, false, SpecLimits.replicas, true),
  users: domain(`a positive integer <= ${SpecLimits.users} (engine limit)`, 1, false, SpecLimits.users, true),
  perVisit: domain(`a positive integer <= ${SpecLimits.perVisit} (engine limit)`, 1, false, SpecLimits.perVisit, true),
  retries: domain(`a whole number <= ${SpecLimits.retries} (engine limit)`, 0, false, SpecLimits.retries, true),
  maxEvents: domain(`a positive integer <= ${SpecLimits.maxEvents} (engine limit)`, 1, false, SpecLimits.maxEvents, true),
} as const;

/** "expected at most N <what> (engine limit), got M" on `path` when a list is too long. */
function tooMany(c: { add(path: string, reason: string): void }, list: unknown[], max: number, path: string, what: string): void {
  if (list.length > max) c.add(path, `expected at most ${max} ${what} (engine limit), got ${list.length}`);
}

/** Fluid steps of a run: horizon / step, bounded by SpecLimits.fluidSteps. Null when within. */
export function fluidStepsIssue(horizon: number, step: number): string | null {
  const steps = horizon / step;
  if (!(steps > SpecLimits.fluidSteps)) return null;
  return `horizon / fluidStep = ${Math.ceil(steps)} steps; expected at most ${SpecLimits.fluidSteps} (engine limit): raise fluidStep or shorten the horizon`;
}

export function inDomain(x: number, d: Domain): boolean {
  if (!Number.isFinite(x) && !(x === Infinity && d.max === Infinity)) return false;
  if (d.integer && !Number.isInteger(x)) return false;
  if (d.minExclusive ? x <= d.min : x < d.min) return false;
  return x <= d.max;
}

export const SCENARIO_AS_HAPPENED = 'as-happened';
/** Keys and names of a spec (figures, checks, scenarios, …): lower-case kebab-case. */
export const KEY_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
const PARAM_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STATS = new Set([
  'mean',
  'max',
  'min',
  'first',
  'last',
  'at',
  'integral',
  'logSlope',
  'firstTimeAbove',
  'firstTimeBelow',
  'p50',
  'p90',
  'p95',
  'p99',
]);

type Rec = Record<string, unknown>;

/** Every key of T, or of any member of a union T. */
type KeysOf<T> = T extends unknown ? keyof T : never;
/**
 * A block as it arrives, before it is checked: the fields its spec type declares, each of any
 * value. Reading a field the type does not declare does not compile, so a validator cannot
 * drift from the types it checks.
 */
type Untrusted<T> = { [K in KeysOf<T> & string]?: unknown };

/** Short rendering of a value for "got ..." in messages. */
export function describeValue(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (typeof x === 'string') return JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x);
  if (typeof x === 'number' || typeof x === 'boolean') return String(x);
  if (Array.isArray(x)) return `an array of ${x.length}`;
  return 'an object';
}

class Checker {
  readonly issues: SpecIssue[] = [];
  readonly params = new Map<string, ParameterSpec>();
  readonly ns: MetricNamespace = {
    stations: new Set(),
    pools: new Set(),
    sources: new Set(),
    caches: new Set(),
    edges: new Set(),
  };
  readonly replicated = new Set<string>();
  readonly eventKeys = new Set<string>();

  add(path: string, reason: string): void {
    this.issues.push({ path, reason });
  }

  /** An object with only `allowed` fields; typed as the block `T` it is checked as. */
  obj<T = Rec>(x: unknown, path: string, allowed: readonly string[]): Untrusted<T> | null {
    if (typeof x !== 'object' || x === null || Array.isArray(x)) {
      this.add(path, `expected an object, got ${describeValue(x)}`);
      return null;
    }
    for (const k of Object.keys(x)) {
      if (!allowed.includes(k)) this.add(`${path}.${k}`, `unknown field (allowed: ${allowed.join(', ')})`);
    }
    return x as Untrusted<T>;
  }

  arr(x: unknown, path: string, required = true): unknown[] {
    if (x === undefined && !required) return [];
    if (!Array.isArray(x)) {
      this.add(path, `expected an array, got ${describeValue(x)}`);
      return [];
    }
    return x;
  }

  str<O extends object>(o: O, k: keyof O & string, path: string, required = true): string | null {
    const v = (o as Rec)[k];
    if (v === undefined && !required) return null;
    if (typeof v !== 'string' || v.length === 0) {
      this.add(`${path}.${k}`, `expected a non-empty string, got ${describeValue(v)}`);
      return null;
    }
    return v;
  }

  key<O extends object>(o: O, k: keyof O & string, path: string): string | null {
    const v = this.str(o, k, path);
    if (v !== null && !KEY_PATTERN.test(v)) {
      this.add(`${path}.${k}`, `expected a lower-case kebab-case key (a-z, 0-9, -), got ${describeValue(v)}`);
      return null;
    }
    return v;
  }

  oneOf<O extends object, T extends string>(o: O, k: keyof O & string, path: string, options: readonly T[], required = false): T | null {
    const v = (o as Rec)[k];
    if (v === undefined && !required) return null;
    if (typeof v !== 'string' || !options.includes(v as T)) {
      this.add(`${path}.${k}`, `expected one of ${options.map((s) => `"${s}"`).join(', ')}, got ${describeValue(v)}`);
      return null;
    }
    return v as T;
  }

  bool<O extends object>(o: O, k: keyof O & string, path: string): void {
    const v = (o as Rec)[k];
    if (v !== undefined && typeof v !== 'boolean') this.add(`${path}.${k}`, `expected true or false, got ${describeValue(v)}`);
  }

  literal<O extends object>(o: O, k: keyof O & string, path: string, d: Domain, required = false): number | null {
    const v = (o as Rec)[k];
    if (v === undefined && !required) return null;
    if (typeof v !== 'number' || !inDomain(v, d)) {
      this.add(`${path}.${k}`, `expected ${d.label}, got ${describeValue(v)}`);
      return null;
    }
    return v;
  }

  /** A NumberValue field: literal, {param} or {expr}. */
  value<O extends object>(o: O, k: keyof O & string, path: string, d: Domain, required = false): void {
    const v = (o as Rec)[k];
    if (v === undefined) {
      if (required) this.add(`${path}.${k}`, `expected ${d.label}, got nothing`);
      return;
    }
    this.valueAt(v, `${path}.${k}`, d);
  }

  valueAt(v: unknown, path: string, d: Domain): void {
    if (typeof v === 'number') {
      if (!inDomain(v, d)) this.add(path, `expected ${d.label}, got ${describeValue(v)}`);
      return;
    }
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const r = v as Rec;
      const keys = Object.keys(r);
      if (keys.length === 1 && typeof r.param === 'string') {
        const p = this.params.get(r.param);
        if (!p) {
          this.add(path, `unknown parameter "${r.param}" (declared: ${[...this.params.keys()].join(', ') || 'none'})`);
        } else if (!inDomain(p.min, d) || !inDomain(p.max, d) || (d.integer && !p.integer)) {
          this.add(
            path,
            `parameter "${p.name}" ranges over [${p.min}, ${p.max}]${p.integer ? ' (integer)' : ''} but ${d.label} is expected here`,
          );
        }
        return;
      }
      if (keys.length === 1 && typeof r.expr === 'string') {
        this.expr(r.expr, path, d);
        return;
      }
    }
    this.add(path, `expected ${d.label}, a {"param": name} or an {"expr": text}, got ${describeValue(v)}`);
  }

  expr(text: string, path: string, d: Domain, extraNames: Set<string> = new Set()): void {
    let ids: string[];
    try {
      ids = parseExpression(text).identifiers;
    } catch (e) {
      this.add(path, e instanceof ExpressionSyntaxError ? `invalid expression: ${e.message}` : 'invalid expression');
      return;
    }
    const unknown = ids.filter((id) => !this.params.has(id) && !extraNames.has(id));
    if (unknown.length > 0) {
      this.add(path, `unknown name${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => `"${s}"`).join(', ')} in expression "${text}"`);
      return;
    }
    if (extraNames.size > 0) return;
    const value = compileExpression(text, (name) => {
      const dv = this.params.get(name)?.default ?? NaN;
      return () => dv;
    })();
    if (!inDomain(value, d)) {
      this.add(path, `expression "${text}" gives ${describeValue(value)} with the default parameters; expected ${d.label}`);
    }
  }

  duration<O extends object>(o: O, k: keyof O & string, path: string, required = false): void {
    const v = (o as Rec)[k];
    if (v === undefined) {
      if (required) this.add(`${path}.${k}`, 'expected a duration in seconds or a distribution, got nothing');
      return;
    }
    const p = `${path}.${k}`;
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'dist' in v) {
      const dist = this.obj(v, p, DISTRIBUTION_FIELDS);
      if (!dist) return;
      const kind = this.oneOf(dist, 'dist', p, ['deterministic', 'exponential', 'lognormal', 'uniform', 'erlang'], true);
      if (kind === 'uniform') {
        this.value(dist, 'min', p, Domains.nonNegative, true);
        this.value(dist, 'max', p, Domains.nonNegative, true);
      } else if (kind) {
        this.value(dist, 'mean', p, Domains.nonNegative, true);
        if (kind === 'lognormal') this.value(dist, 'cv', p, Domains.positive, true);
        if (kind === 'erlang') this.literal(dist, 'k', p, Domains.positiveInteger, true);
      }
      return;
    }
    this.valueAt(v, p, Domains.nonNegative);
  }

  time(v: unknown, path: string): void {
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'event' in v) {
      const r = this.obj(v, path, EVENT_TIME_FIELDS);
      if (!r) return;
      const key = this.str(r, 'event', path);
      if (key && !this.eventKeys.has(key)) this.add(`${path}.event`, `unknown event "${key}"`);
      this.literal(r, 'offset', path, Domains.any);
      return;
    }
    this.valueAt(v, path, Domains.nonNegative);
  }

  /** A NumberValue at the default parameters (NaN when it does not evaluate). */
  atDefaults(v: unknown): number {
    if (typeof v === 'number') return v;
    if (typeof v !== 'object' || v === null) return NaN;
    const r = v as Rec;
    if (typeof r.param === 'string') return this.params.get(r.param)?.default ?? NaN;
    if (typeof r.expr !== 'string') return NaN;
    try {
      return compileExpression(r.expr, (name) => {
        const dv = this.params.get(name)?.default ?? NaN;
        return () => dv;
      })();
    } catch {
      return NaN;
    }
  }

  unique(keys: Set<string>, value: string | null, path: string, what: string): void {
    if (value === null) return;
    if (keys.has(value)) this.add(path, `duplicate ${what} "${value}"`);
    keys.add(value);
  }
}


function checkPolicy(c: Checker, v: unknown, path: string): void {
  if (v === undefined) return;
  const p = c.obj(v, path, POLICY_FIELDS);
  if (!p) return;
  c.value(p, 'timeout', path, Domains.nonNegative);
  c.value(p, 'retries', path, Domains.retries);
  c.value(p, 'concurrencyLimit', path, Domains.positiveInteger);
  if (p.backoff !== undefined) {
    const bp = `${path}.backoff`;
    const b = c.obj(p.backoff, bp, BACKOFF_FIELDS);
    if (b) {
      c.oneOf(b, 'kind', bp, ['none', 'constant', 'exponential'], true);
      c.value(b, 'base', bp, Domains.nonNegative);
      c.value(b, 'multiplier', bp, Domains.factor);
      c.value(b, 'max', bp, Domains.nonNegative);
      c.oneOf(b, 'jitter', bp, ['none', 'full', 'equal']);
    }
  }
  if (p.retryOn !== undefined) {
    c.arr(p.retryOn, `${path}.retryOn`).forEach((r, i) => {
      const ok = (typeof r === 'string' && ['5xx', '4xx', 'timeout', 'shed'].includes(r)) || (typeof r === 'number' && Number.isInteger(r) && r >= 400 && r <= 599);
      if (!ok) c.add(`${path}.retryOn[${i}]`, `expected "5xx", "4xx", "timeout", "shed" or a status 400..599, got ${describeValue(r)}`);
    });
  }
  if (p.retryBudget !== undefined) {
    const rp = `${path}.retryBudget`;
    const r = c.obj(p.retryBudget, rp, RETRY_BUDGET_FIELDS);
    if (r) {
      c.value(r, 'ratio', rp, Domains.nonNegative, true);
      c.value(r, 'minPerSecond', rp, Domains.nonNegative);
      c.value(r, 'burst', rp, Domains.positive);
    }
  }
}

/** A `calls[]` entry: a call, or an exclusive branch `{ oneOf: [calls with probability] }`. */
function checkCallStep(c: Checker, v: unknown, path: string, from: string, stationKeys: Set<string>): void {
  if (typeof v !== 'object' || v === null || !('oneOf' in v)) {
    checkCall(c, v, path, from, stationKeys);
    return;
  }
  const step = c.obj(v, path, EXCLUSIVE_CALL_FIELDS);
  if (!step) return;
  const branches = c.arr(step.oneOf, `${path}.oneOf`);
  if (Array.isArray(step.oneOf) && branches.length === 0) c.add(`${path}.oneOf`, 'expected at least one call');
  tooMany(c, branches, SpecLimits.perVisit, `${path}.oneOf`, 'branches');
  let total = 0;
  branches.forEach((b, k) => {
    const bp = `${path}.oneOf[${k}]`;
    checkCall(c, b, bp, from, stationKeys);
    if (typeof b !== 'object' || b === null) return;
    const p = (b as Rec).probability;
    if (p === undefined) c.add(`${bp}.probability`, 'expected the share of visits taking this branch, got nothing');
    else total += c.atDefaults(p);
  });
  if (total > 1 + 1e-9) c.add(`${path}.oneOf`, `expected branch probabilities adding up to at most 1, got ${Math.round(total * 1e6) / 1e6} with the default parameters`);
}

function checkCall(c: Checker, v: unknown, path: string, from: string, stationKeys: Set<string>): void {
  const call = c.obj(v, path, CALL_FIELDS);
  if (!call) return;
  const to = c.key(call, 'to', path);
  if (to && !stationKeys.has(to)) c.add(`${path}.to`, `unknown station "${to}" (known: ${[...stationKeys].join(', ')})`);
  if (to) c.ns.edges.add(`${from}->${to}`);
  c.value(call, 'probability', path, Domains.probability);
  c.value(call, 'multiplicity', path, Domains.perVisit);
  c.oneOf(call, 'mode', path, ['sequential', 'parallel']);
  if (typeof call.fanOut === 'string') {
    const fan = c.oneOf(call, 'fanOut', path, ['one', 'all']);
    if (fan === 'all' && to && stationKeys.has(to) && !c.replicated.has(to)) {
      c.add(`${path}.fanOut`, `"all" needs a replicated target, but station "${to}" has a single replica`);
    }
  } else if (call.fanOut !== undefined) {
    c.value(call, 'fanOut', path, Domains.positiveInteger);
  }
  checkPolicy(c, call.policy, `${path}.policy`);
  if (call.errorMap !== undefined) {
    const m = c.obj(call.errorMap, `${path}.errorMap`, Object.keys(call.errorMap as object));
    if (m) {
      for (const [from2, to2] of Object.entries(m)) {
        const ok = /^[45]\d\d$/.test(from2) && typeof to2 === 'number' && Number.isInteger(to2) && to2 >= 400 && to2 <= 599;
        if (!ok) c.add(`${path}.errorMap.${from2}`, `expected a status 400..599 mapped to a status 400..599, got ${describeValue(to2)}`);
      }
    }
  }
  c.oneOf(call, 'onError', path, ['fail', 'ignore']);
  c.value(call, 'work', path, Domains.nonNegative);
}

function checkQueue(c: Checker, v: unknown, path: string): void {
  if (v === undefined) return;
  const q = c.obj(v, path, QUEUE_FIELDS);
  if (!q) return;
  c.value(q, 'limit', path, Domains.nonNegativeInteger);
  c.bool(q, 'dropAbandoned', path);
  c.value(q, 'maxWait', path, Domains.positive);
}

function checkMeasure(c: Checker, v: unknown, path: string, scenarioKeys: Set<string>, figureNames: Set<string>): void {
  if (typeof v === 'object' && v !== null && 'eventTime' in v) {
    const m = c.obj(v, path, EVENT_TIME_MEASURE_FIELDS);
    if (!m) return;
    const key = c.str(m, 'eventTime', path);
    if (key && !c.eventKeys.has(key)) c.add(`${path}.eventTime`, `unknown event "${key}"`);
    const sc = c.str(m, 'scenario', path, false);
    if (sc && !scenarioKeys.has(sc)) c.add(`${path}.scenario`, `unknown scenario "${sc}"`);
    return;
  }
  if (typeof v === 'object' && v !== null && 'figure' in v) {
    const m = c.obj(v, path, FIGURE_MEASURE_FIELDS);
    if (!m) return;
    const name = c.str(m, 'figure', path);
    if (name && !figureNames.has(name)) c.add(`${path}.figure`, `unknown figure "${name}"`);
    const sc = c.str(m, 'scenario', path, false);
    if (sc && !scenarioKeys.has(sc)) c.add(`${path}.scenario`, `unknown scenario "${sc}"`);
    return;
  }
  const m = c.obj(v, path, METRIC_MEASURE_FIELDS);
  if (!m) return;
  const metric = c.str(m, 'metric', path);
  let kind: string | null = null;
  if (metric) {
    const parsed = parseMetricName(metric, c.ns);
    if (typeof parsed === 'string') c.add(`${path}.metric`, parsed);
    else kind = parsed.info.kind;
  }
  const stat = m.stat;
  if (typeof stat !== 'string' || !STATS.has(stat)) {
    c.add(`${path}.stat`, `expected one of ${[...STATS].join(', ')}, got ${describeValue(stat)}`);
  } else {
    if (/^p\d+$/.test(stat) && kind !== null && kind !== 'latency') {
      c.add(`${path}.stat`, `percentile "${stat}" applies to latency metrics only`);
    }
    if (stat.startsWith('firstTime')) c.value(m, 'threshold', path, Domains.any, true);
    if (stat === 'at' && m.from === undefined) c.add(`${path}.from`, 'stat "at" needs the time in "from"');
  }
  if (m.from !== undefined) c.time(m.from, `${path}.from`);
  if (m.to !== undefined) c.time(m.to, `${path}.to`);
  c.literal(m, 'sustain', path, Domains.nonNegative);
  c.literal(m, 'window', path, Domains.positive);
  if (m.window !== undefined && !(typeof stat === 'string' && stat.startsWith('firstTime'))) c.add(`${path}.window`, 'only firstTimeAbove and firstTimeBelow take a window');
  const sc = c.str(m, 'scenario', path, false);
  if (sc && !scenarioKeys.has(sc)) c.add(`${path}.scenario`, `unknown scenario "${sc}"`);
}

function checkFormula(c: Checker, o: Rec, path: string, scenarioKeys: Set<string>, figureNames: Set<string>): Set<string> {
  const names = new Set<string>();
  const hasOne = o.measure !== undefined;
  const hasMany = o.measures !== undefined;
  if (hasOne && hasMany) {
    c.add(path, 'expected "measure" or "measures", not both');
    return names;
  }
  if (!hasOne && !hasMany) {
    // A formula over parameters alone (a prediction shown beside the measured figures).
    if (typeof o.value !== 'string') c.add(`${path}.value`, 'expected "measure", "measures" or a "value" expression over parameters');
    else c.expr(o.value, `${path}.value`, Domains.any, new Set(['__none__']));
    return names;
  }
  if (hasOne) {
    checkMeasure(c, o.measure, `${path}.measure`, scenarioKeys, figureNames);
    names.add('value');
  } else {
    const ms = o.measures;
    if (typeof ms !== 'object' || ms === null || Array.isArray(ms) || Object.keys(ms).length === 0) {
      c.add(`${path}.measures`, `expected an object of named measures, got ${describeValue(ms)}`);
      return names;
    }
    for (const [name, m] of Object.entries(ms)) {
      if (!PARAM_PATTERN.test(name)) c.add(`${path}.measures.${name}`, 'measure names must be identifiers (letters, digits, _)');
      names.add(name);
      checkMeasure(c, m, `${path}.measures.${name}`, scenarioKeys, figureNames);
    }
    if (o.value === undefined && names.size !== 1) c.add(`${path}.value`, 'expected an expression combining the measures');
  }
  if (o.value !== undefined) {
    if (typeof o.value !== 'string') c.add(`${path}.value`, `expected an expression, got ${describeValue(o.value)}`);
    else c.expr(o.value, `${path}.value`, Domains.any, names);
  }
  return names;
}

function checkEvent(c: Checker, v: unknown, path: string, spec: Rec, keys: Set<string>): void {
  const e = c.obj(v, path, [...EVENT_COMMON_FIELDS, ...new Set(Object.values(EVENT_FIELDS).flat())]);
  if (!e) return;
  c.unique(keys, c.key(e, 'key', path), `${path}.key`, 'event key');
  c.value(e, 'at', path, Domains.nonNegative, true);
  c.str(e, 'label', path);
  const kind = c.oneOf(e, 'kind', path, Object.keys(EVENT_FIELDS), true);
  if (!kind) return;
  const allowed = new Set([...EVENT_COMMON_FIELDS, ...EVENT_FIELDS[kind as keyof typeof EVENT_FIELDS]]);
  for (const k of Object.keys(e)) if (!allowed.has(k)) c.add(`${path}.${k}`, `not a field of a "${kind}" event (allowed: ${[...allowed].join(', ')})`);
  const ref = (field: string, set: Set<string>, what: string): void => {
    const k = c.key(e, field, path);
    if (k && !set.has(k)) c.add(`${path}.${field}`, `unknown ${what} "${k}"`);
  };
  switch (kind) {
    case 'setParameter': {
      const name = c.str(e, 'parameter', path);
      const p = name ? c.params.get(name) : undefined;
      if (name && !p) c.add(`${path}.parameter`, `unknown parameter "${name}"`);
      if (p && typeof e.value === 'number' && (e.value < p.min || e.value > p.max || (p.integer && !Number.isInteger(e.value)))) {
        c.add(`${path}.value`, `expected ${p.integer ? 'an integer' : 'a number'} between ${p.min} and ${p.max} ${p.unit} for "${p.name}", got ${e.value}`);
      } else c.value(e, 'value', path, Domains.any, true);
      c.value(e, 'ramp', path, Domains.nonNegative);
      break;
    }
    case 'scaleSource':
      ref('source', c.ns.sources, 'source');
      c.value(e, 'factor', path, Domains.nonNegative, true);
      c.value(e, 'ramp', path, Domains.nonNegative);
      break;
    case 'setSlots':
      ref('station', c.ns.stations, 'station');
      c.value(e, 'slots', path, Domains.nonNegativeInteger, true);
      c.value(e, 'ramp', path, Domains.nonNegative);
      break;
    case 'setErrorRate':
      ref('station', c.ns.stations, 'station');
      c.value(e, 'value', path, Domains.probability, true);
      break;
    case 'cacheFlush':
      ref('cache', c.ns.caches, 'cache');
      c.value(e, 'fraction', path, Domains.probability, true);
      c.value(e, 'over', path, Domains.nonNegative);
      break;
    case 'throttle':
      ref('station', c.ns.stations, 'station');
      c.value(e, 'admit', path, Domains.probability, true);
      c.value(e, 'ramp', path, Domains.nonNegative);
      break;
    case 'cancelEvents':
      c.arr(e.keys, `${path}.keys`).forEach((k, i) => {
        if (typeof k !== 'string') c.add(`${path}.keys[${i}]`, `expected an event key, got ${describeValue(k)}`);
      });
      break;
    default:
      ref('station', c.ns.stations, 'station');
  }
  void spec;
}


/**
 * Checks a parsed JSON value against the spec format and returns it typed.
 * Throws {@link ModelSpecError} listing every problem with its path.
 */
export function validateSpec(input: unknown): ModelSpec {
  const c = new Checker();
  const s = c.obj<ModelSpec>(input, '$', TOP_FIELDS);
  if (!s) throw new ModelSpecError(c.issues);
  if (s.schemaVersion !== 1) c.add('schemaVersion', `expected 1, got ${describeValue(s.schemaVersion)}`);
  c.key(s, 'slug', '$');
  c.str(s, 'version', '$');
  c.str(s, 'title', '$');
  c.str(s, 'description', '$');
  c.str(s, 'timeOrigin', '$', false);
  const fix = (p: string): string => p.replace(/^\$\./, '');

  // Parameters first: every other field may refer to them.
  c.arr(s.parameters, 'parameters').forEach((v, i) => validateParameter(c, v, i));

  const engine = c.obj<EngineSpec>(s.engine, 'engine', ENGINE_FIELDS);
  if (engine) {
    c.oneOf(engine, 'mode', 'engine', ['des', 'fluid'], true);
    c.literal(engine, 'fluidStep', 'engine', Domains.positive);
    c.literal(engine, 'maxEvents', 'engine', Domains.maxEvents);
  }
  c.value(s, 'horizon', '$', Domains.positive, true);
  // The longest horizon the parameters allow, for the fluid-steps bound.
  const h = s.horizon;
  const maxHorizon = typeof h === 'number' ? h : typeof h === 'object' && h !== null && 'param' in h ? c.params.get(String((h as Rec).param))?.max : undefined;
  const checkSteps = (e: Rec | null, path: string, inherited: Rec | null): void => {
    const mode = e?.mode ?? inherited?.mode;
    if (mode !== 'fluid' || typeof maxHorizon !== 'number') return;
    const own = e?.fluidStep ?? inherited?.fluidStep;
    const step = typeof own === 'number' && own > 0 ? own : DEFAULT_FLUID_STEP;
    const issue = fluidStepsIssue(maxHorizon, step);
    if (issue) c.add(path, issue);
  };
  checkSteps(engine, 'engine.fluidStep', null);
  if (s.points !== undefined && (typeof s.points !== 'number' || !Number.isInteger(s.points) || s.points < 10 || s.points > 500)) {
    c.add('points', `expected an integer between 10 and 500, got ${describeValue(s.points)}`);
  }

  // Collect block keys before checking references between blocks.
  const allKeys = new Set<string>();
  const stationsRaw = c.arr(s.stations, 'stations');
  const sourcesRaw = c.arr(s.sources, 'sources');
  const poolsRaw = c.arr(s.pools, 'pools', false);
  const cachesRaw = c.arr(s.caches, 'caches', false);
  const collect = (list: unknown[], name: string, set: Set<string>): void =>
    list.forEach((v, i) => {
      if (typeof v === 'object' && v !== null && typeof (v as Rec).key === 'string') {
        const key = (v as Rec).key as string;
        c.unique(allKeys, key, `${name}[${i}].key`, 'block key');
        set.add(key);
        if (name === 'stations' && typeof (v as Rec).replicas === 'number' && ((v as Rec).replicas as number) > 1) c.replicated.add(key);
      }
    });
  collect(stationsRaw, 'stations', c.ns.stations);
  collect(sourcesRaw, 'sources', c.ns.sources);
  collect(poolsRaw, 'pools', c.ns.pools);
  collect(cachesRaw, 'caches', c.ns.caches);
  if (stationsRaw.length === 0) c.add('stations', 'expected at least one station');
  tooMany(c, stationsRaw, SpecLimits.blocks, 'stations', 'stations');
  tooMany(c, sourcesRaw, SpecLimits.blocks, 'sources', 'sources');
  tooMany(c, poolsRaw, SpecLimits.blocks, 'pools', 'pools');
  tooMany(c, cachesRaw, SpecLimits.blocks, 'caches', 'caches');
  if (sourcesRaw.length === 0) c.add('sources', 'expected at least one source');

  poolsRaw.forEach((v, i) => validatePool(c, v, i));

  cachesRaw.forEach((v, i) => validateCache(c, v, i));

  stationsRaw.forEach((v, i) => validateStation(c, v, i));

  sourcesRaw.forEach((v, i) => validateSource(c, v, i));

  // Event keys are global so windows and checks can refer to them from any scenario.
  const eventKeys = c.eventKeys;
  const scenariosRaw = c.arr(s.scenarios, 'scenarios');
  const baseEvents = c.arr(s.events, 'events', false);
  tooMany(c, baseEvents, SpecLimits.events, 'events', 'events');
  baseEvents.forEach((ev, i) => checkEvent(c, ev, `events[${i}]`, s, eventKeys));
  const baseEventKeys = new Set(eventKeys);
  const scenarioKeys = new Set<string>();
  const scenarioCtx: ScenarioContext = { spec: s, scenarioKeys, baseEventKeys, checkSteps: (e, path) => checkSteps(e, path, engine) };
  scenariosRaw.forEach((v, i) => validateScenario(c, v, i, scenarioCtx));
  if (scenariosRaw.length > 0 && !scenarioKeys.has(SCENARIO_AS_HAPPENED)) {
    c.add('scenarios', `expected a scenario with key "${SCENARIO_AS_HAPPENED}"`);
  }

  const probeKeys = new Set<string>();
  const probes = c.arr(s.probes, 'probes');
  if (probes.length === 0) c.add('probes', 'expected at least one probe');
  // A run may ask for up to 500 points per series whatever the spec says.
  const maxProbes = Math.floor(SpecLimits.probeCells / 500);
  if (probes.length > maxProbes) {
    c.add('probes', `expected at most ${maxProbes} probes (probes × 500 points <= ${SpecLimits.probeCells}, engine limit), got ${probes.length}`);
  }
  probes.forEach((v, i) => validateProbe(c, v, i, probeKeys));

  const figureNames = new Set<string>();
  const figures = c.arr(s.figures, 'figures', false);
  figures.forEach((v) => {
    if (typeof v === 'object' && v !== null && typeof (v as Rec).name === 'string') figureNames.add((v as Rec).name as string);
  });
  const seenFigures = new Set<string>();
  figures.forEach((v, i) => validateFigure(c, v, i, seenFigures, scenarioKeys));

  const checkNames = new Set<string>();
  const checksRaw = c.arr(s.checks, 'checks', false);
  if (figures.length + checksRaw.length > SpecLimits.measures) {
    c.add('checks', `expected at most ${SpecLimits.measures} figures and checks together (engine limit), got ${figures.length + checksRaw.length}`);
  }
  checksRaw.forEach((v, i) => validateCheck(c, v, i, checkNames, scenarioKeys, figureNames));

  checkEnsembleChecks(c, c.arr(s.ensembleChecks, 'ensembleChecks', false), scenarioKeys, figureNames, checkNames, s.failure !== undefined);

  checkFailureCriterion(c, s.failure, 'failure');
  checkBaselines(c, scenariosRaw, scenarioKeys, s.failure !== undefined);

  if (c.issues.length > 0) {
    throw new ModelSpecError(c.issues.map((x) => ({ path: fix(x.path), reason: x.reason })));
  }
  return input as ModelSpec;
}

// ---- what a reader may believe: provenance, check kinds, the failure criterion ----------------

const CHECK_KINDS = ['reproduces', 'fitted', 'construction'];

/** A passage of the source: its words and where it stands. */
function checkSourceQuote(c: Checker, v: unknown, path: string, extra?: readonly string[]): Rec | null {
  const q = c.obj(v, path, extra ?? SOURCE_QUOTE_FIELDS);
  if (!q) return null;
  c.str(q, 'quote', path);
  c.str(q, 'place', path);
  return q;
}

/** `parameters[i].provenance`: a figure of the source, a derivation, or an assumption with its reason. */
function checkProvenance(c: Checker, v: unknown, path: string): void {
  if (v === undefined) return;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    c.add(path, `expected an object with kind "source", "derived" or "assumption", got ${describeValue(v)}`);
    return;
  }
  const kind = (v as Rec).kind;
  if (kind === 'source') {
    checkSourceQuote(c, v, path, PROVENANCE_FIELDS.source);
  } else if (kind === 'derived') {
    const d = c.obj(v, path, PROVENANCE_FIELDS.derived);
    if (!d) return;
    c.str(d, 'formula', path);
    c.arr(d.from, `${path}.from`, false).forEach((q, i) => checkSourceQuote(c, q, `${path}.from[${i}]`));
  } else if (kind === 'assumption') {
    const a = c.obj(v, path, PROVENANCE_FIELDS.assumption);
    if (a) c.str(a, 'why', path);
  } else {
    c.add(`${path}.kind`, `expected one of "source", "derived", "assumption", got ${describeValue(kind)}`);
  }
}

/** `checks[i].kind`, `.source`, `.fittedParameter`: only a check that reproduces a quoted figure is evidence. */
function checkCheckKind(c: Checker, ch: Rec, path: string): void {
  const kind = checkKindFields(c, ch, path);
  if (ch.source !== undefined) checkSourceQuote(c, ch.source, `${path}.source`);
  else if (kind === 'reproduces') c.add(`${path}.source`, 'a check that reproduces a figure of the source must quote it: expected { quote, place }, got nothing');
}

/** `kind` and `fittedParameter` of a check, or of the failure criterion's own check. */
function checkKindFields(c: Checker, ch: Rec, path: string): string | null {
  const kind = c.oneOf(ch, 'kind', path, CHECK_KINDS);
  if (ch.fittedParameter === undefined && kind === 'fitted') {
    // A reader must be able to see which value was chosen to make it pass.
    c.add(`${path}.fittedParameter`, `a "fitted" check names the parameter chosen to make it pass: expected a declared parameter (declared: ${[...c.params.keys()].join(', ') || 'none'}), got nothing`);
  } else if (ch.fittedParameter !== undefined) {
    if (kind !== 'fitted') c.add(`${path}.fittedParameter`, `only a "fitted" check names the parameter fitted to it (kind is ${describeValue(kind ?? 'unset')})`);
    else if (typeof ch.fittedParameter !== 'string' || !c.params.has(ch.fittedParameter)) {
      c.add(`${path}.fittedParameter`, `expected a declared parameter (declared: ${[...c.params.keys()].join(', ') || 'none'}), got ${describeValue(ch.fittedParameter)}`);
    }
  }
  return kind;
}

/** `scenarios[i].baseline`: another scenario of the model, and only meaningful with a failure criterion. */
function checkBaselines(c: Checker, scenarios: unknown[], keys: Set<string>, hasFailure: boolean): void {
  scenarios.forEach((v, i) => {
    if (typeof v !== 'object' || v === null || !('baseline' in v)) return;
    const sc = v as Rec;
    const path = `scenarios[${i}].baseline`;
    if (typeof sc.baseline !== 'string' || !keys.has(sc.baseline)) c.add(path, `expected the key of another scenario (known: ${[...keys].join(', ')}), got ${describeValue(sc.baseline)}`);
    else if (sc.baseline === sc.key) c.add(path, 'a scenario cannot be judged against itself');
    else if (!hasFailure) c.add(path, 'a baseline needs a failure criterion ("failure") to judge the scenario by');
  });
}

/** `failure`: the condition that makes a run an outage, with the source's own word that it happened. */
function checkFailureCriterion(c: Checker, v: unknown, path: string): void {
  if (v === undefined) return;
  const f = c.obj(v, path, FAILURE_FIELDS);
  if (!f) return;
  checkKindFields(c, f, path);
  c.str(f, 'description', path);
  const metric = c.str(f, 'metric', path);
  if (metric) {
    const parsed = parseMetricName(metric, c.ns);
    if (typeof parsed === 'string') c.add(`${path}.metric`, parsed);
  }
  c.oneOf(f, 'op', path, ['below', 'above'], true);
  c.value(f, 'threshold', path, Domains.any, true);
  c.literal(f, 'sustain', path, Domains.nonNegative);
  for (const k of ['from', 'to']) {
    const t = f[k];
    if (t === undefined) continue;
    if (typeof t === 'object' && t !== null && 'event' in t) {
      const key = (t as Rec).event;
      if (typeof key !== 'string' || !c.eventKeys.has(key)) c.add(`${path}.${k}.event`, `unknown event ${describeValue(key)}`);
    } else {
      c.valueAt(t, `${path}.${k}`, Domains.nonNegative);
    }
  }
  if (f.source === undefined) c.add(`${path}.source`, "expected the source's statement that the failure happened, { quote, place }, got nothing");
  else checkSourceQuote(c, f.source, `${path}.source`);
  if (f.tolerance !== undefined) {
    const t = c.obj(f.tolerance, `${path}.tolerance`, FAILURE_TOLERANCE_FIELDS);
    if (t) {
      c.literal(t, 'seconds', `${path}.tolerance`, Domains.nonNegative);
      c.literal(t, 'relative', `${path}.tolerance`, Domains.probability);
    }
  }
}

/** `expect` of a check: the comparison and its bounds (numbers, parameters, or expressions over `names` and parameters). */
function checkExpect(c: Checker, v: unknown, ep: string, names: Iterable<string>): void {
  const ex = c.obj(v, ep, EXPECT_FIELDS);
  if (!ex) return;
    const op = c.oneOf(ex, 'op', ep, ['approx', '>=', '<=', '>', '<', 'between'], true);
    const bound = (k: string, required: boolean): void => {
      const b = ex[k];
      if (b === undefined) {
        if (required) c.add(`${ep}.${k}`, 'expected a number, parameter or expression, got nothing');
        return;
      }
      if (typeof b === 'string') c.expr(b, `${ep}.${k}`, Domains.any, new Set([...names, ...c.params.keys()]));
      else c.valueAt(b, `${ep}.${k}`, Domains.any);
    };
    if (op === 'between') {
      bound('min', true);
      bound('max', true);
    } else if (op) {
      bound('value', true);
    }
    if (op === 'approx') c.literal(ex, 'tolerance', ep, Domains.nonNegative, true);
    c.bool(ex, 'absolute', ep);
}

const ENSEMBLE_STATS = ['mean', 'sd', 'min', 'max', 'p10', 'p50', 'p90', 'failureProbability'];

/** `ensembleChecks[]`: a statistic of a figure, or the failure probability, over a seed ensemble. */
function checkEnsembleChecks(c: Checker, list: unknown[], scenarioKeys: Set<string>, figureNames: Set<string>, checkNames: Set<string>, hasFailure: boolean): void {
  list.forEach((v, i) => {
    const path = `ensembleChecks[${i}]`;
    const ch = c.obj(v, path, ENSEMBLE_CHECK_FIELDS);
    if (!ch) return;
    checkCheckKind(c, ch, path);
    c.unique(checkNames, c.key(ch, 'name', path), `${path}.name`, 'check name');
    c.str(ch, 'description', path);
    c.str(ch, 'unit', path);
    c.str(ch, 'ifFails', path, false);
    checkScenarioList(c, ch.scenarios, `${path}.scenarios`, scenarioKeys);
    const seeds = ch.seeds;
    if (typeof seeds !== 'number' || !Number.isInteger(seeds) || seeds < 2 || seeds > SpecLimits.ensembleSeeds) {
      c.add(`${path}.seeds`, `expected a whole number of runs between 2 and ${SpecLimits.ensembleSeeds} (engine limit), got ${describeValue(seeds)}`);
    }
    const stat = c.oneOf(ch, 'stat', path, ENSEMBLE_STATS, true);
    if (stat === 'failureProbability') {
      if (!hasFailure) c.add(`${path}.stat`, 'failureProbability needs a failure criterion ("failure") to count runs by');
      if (ch.figure !== undefined) c.add(`${path}.figure`, 'a failureProbability check reads no figure');
    } else if (stat) {
      if (typeof ch.figure !== 'string' || !figureNames.has(ch.figure)) {
        c.add(`${path}.figure`, `expected the name of a figure (known: ${[...figureNames].join(', ') || 'none'}), got ${describeValue(ch.figure)}`);
      }
    }
    checkExpect(c, ch.expect, `${path}.expect`, []);
  });
}

/** `scenarios` of a check: "*" or a non-empty list of scenario keys. */
function checkScenarioList(c: Checker, v: unknown, path: string, scenarioKeys: Set<string>): void {
  if (v === '*') return;
  const list = c.arr(v, path);
  if (Array.isArray(v) && list.length === 0) c.add(path, 'expected at least one scenario key or "*"');
  list.forEach((k, j) => {
    if (typeof k !== 'string' || !scenarioKeys.has(k)) c.add(`${path}[${j}]`, `unknown scenario ${describeValue(k)}`);
  });
}

// ---- one validator per block, each reading its block as the spec type it checks -------------

/** `parameters[i]`: name, unit, range and default, and where the value comes from. */
function validateParameter(c: Checker, v: unknown, i: number): void {
  const path = `parameters[${i}]`;
  const p = c.obj<ParameterSpec>(v, path, PARAMETER_FIELDS);
  if (!p) return;
  checkProvenance(c, p.provenance, `${path}.provenance`);
  const name = c.str(p, 'name', path);
  if (name && !PARAM_PATTERN.test(name)) c.add(`${path}.name`, `expected an identifier (letters, digits, _), got ${describeValue(name)}`);
  c.str(p, 'label', path, false);
  c.str(p, 'unit', path);
  c.str(p, 'description', path);
  c.bool(p, 'integer', path);
  const min = c.literal(p, 'min', path, Domains.any, true);
  const max = c.literal(p, 'max', path, Domains.any, true);
  const def = c.literal(p, 'default', path, Domains.any, true);
  if (min !== null && max !== null && min > max) c.add(`${path}.max`, `expected max >= min (${min}), got ${max}`);
  if (def !== null && min !== null && max !== null && (def < min || def > max)) {
    c.add(`${path}.default`, `expected a default between ${min} and ${max}, got ${def}`);
  }
  if (p.integer === true && def !== null && !Number.isInteger(def)) c.add(`${path}.default`, `expected an integer, got ${def}`);
  if (name) {
    if (c.params.has(name)) c.add(`${path}.name`, `duplicate parameter "${name}"`);
    else if (min !== null && max !== null && def !== null) c.params.set(name, p as unknown as ParameterSpec);
  }
}

/** `pools[i]`. */
function validatePool(c: Checker, v: unknown, i: number): void {
  const path = `pools[${i}]`;
  const p = c.obj<PoolSpec>(v, path, POOL_FIELDS);
  if (!p) return;
  c.key(p, 'key', path);
  if (p.slots !== null) c.value(p, 'slots', path, Domains.positiveInteger, true);
  checkQueue(c, p.queue, `${path}.queue`);
}

/** `caches[i]`. */
function validateCache(c: Checker, v: unknown, i: number): void {
  const path = `caches[${i}]`;
  const p = c.obj<CacheSpec>(v, path, CACHE_FIELDS);
  if (!p) return;
  c.key(p, 'key', path);
  c.literal(p, 'nodes', path, Domains.cacheNodes, true);
  c.value(p, 'keysPerNode', path, Domains.positive, true);
  c.value(p, 'initialWarm', path, Domains.probability);
  c.value(p, 'hitCeiling', path, Domains.probability);
}

/** `stations[i]`: slots, service, slowdown, look-aside, calls and emits. */
function validateStation(c: Checker, v: unknown, i: number): void {
  const path = `stations[${i}]`;
  const st = c.obj<StationSpec>(v, path, STATION_FIELDS);
  if (!st) return;
  const key = c.key(st, 'key', path) ?? '?';
  c.str(st, 'title', path, false);
  c.str(st, 'description', path, false);
  const slots = st.slots;
  if (typeof slots === 'object' && slots !== null && 'pool' in slots) {
    const pool = (slots as Rec).pool;
    if (typeof pool !== 'string' || !c.ns.pools.has(pool)) c.add(`${path}.slots.pool`, `unknown pool ${describeValue(pool)}`);
    if (st.replicas !== undefined && st.replicas !== 1) c.add(`${path}.replicas`, 'a station on a shared pool cannot be replicated');
    if (st.queue !== undefined) c.add(`${path}.queue`, 'a station on a shared pool uses the pool\'s queue');
  } else if (slots !== undefined && slots !== null) {
    c.value(st, 'slots', path, Domains.positiveInteger);
  }
  c.literal(st, 'replicas', path, Domains.replicas);
  checkQueue(c, st.queue, `${path}.queue`);
  c.duration(st, 'service', path);
  c.value(st, 'serviceWork', path, Domains.nonNegative);
  if (st.slowdown !== undefined) {
    const sp = `${path}.slowdown`;
    const sd = c.obj<SlowdownSpec>(st.slowdown, sp, SLOWDOWN_FIELDS);
    if (sd) {
      const kind = c.oneOf(sd, 'kind', sp, ['utilisation', 'concurrency'], true);
      if (kind === 'utilisation') c.value(sd, 'threshold', sp, Domains.probability, true);
      if (kind === 'concurrency') c.value(sd, 'knee', sp, Domains.positive, true);
      c.value(sd, 'factor', sp, Domains.nonNegative, true);
    }
  }
  c.duration(st, 'linger', path);
  c.bool(st, 'continueAfterTimeout', path);
  c.value(st, 'errorRate', path, Domains.probability);
  if (st.errorStatus !== undefined && !(typeof st.errorStatus === 'number' && Number.isInteger(st.errorStatus) && st.errorStatus >= 400 && st.errorStatus <= 599)) {
    c.add(`${path}.errorStatus`, `expected a status 400..599, got ${describeValue(st.errorStatus)}`);
  }
  c.value(st, 'admit', path, Domains.probability);
  if (st.lookaside !== undefined) {
    const lp = `${path}.lookaside`;
    const la = c.obj<LookasideSpec>(st.lookaside, lp, LOOKASIDE_FIELDS);
    if (la) {
      const cache = c.key(la, 'cache', lp);
      if (cache && !c.ns.caches.has(cache)) c.add(`${lp}.cache`, `unknown cache "${cache}"`);
      c.value(la, 'keys', lp, Domains.perVisit, true);
      checkCall(c, la.onMiss, `${lp}.onMiss`, key, c.ns.stations);
      if (typeof la.missWork === 'string' || la.missWork === undefined) c.oneOf(la, 'missWork', lp, ['missing', 'all']);
      else c.value(la, 'missWork', lp, Domains.probability);
    }
  }
  c.arr(st.calls, `${path}.calls`, false).forEach((call, j) => checkCallStep(c, call, `${path}.calls[${j}]`, key, c.ns.stations));
  c.arr(st.emits, `${path}.emits`, false).forEach((em, j) => {
    const ep = `${path}.emits[${j}]`;
    const e = c.obj<EmitSpec>(em, ep, EMIT_FIELDS);
    if (!e) return;
    const to = c.key(e, 'to', ep);
    if (to && !c.ns.stations.has(to)) c.add(`${ep}.to`, `unknown station "${to}"`);
    c.value(e, 'probability', ep, Domains.probability);
    c.oneOf(e, 'on', ep, ['success', 'failure', 'any']);
    c.value(e, 'delay', ep, Domains.nonNegative);
    c.value(e, 'maxDepth', ep, Domains.nonNegative);
  });
}

/** `sources[i]`: open (rate, profile or trace) or closed (users, think time), and its client policy. */
function validateSource(c: Checker, v: unknown, i: number): void {
  const path = `sources[${i}]`;
  const so = c.obj<SourceSpec>(v, path, SOURCE_FIELDS);
  if (!so) return;
  const key = c.key(so, 'key', path) ?? '?';
  const target = c.key(so, 'target', path);
  if (target && !c.ns.stations.has(target)) c.add(`${path}.target`, `unknown station "${target}"`);
  if (target) c.ns.edges.add(`${key}->${target}`);
  const kind = c.oneOf(so, 'kind', path, ['open', 'closed'], true);
  if (kind === 'open') {
    c.oneOf(so, 'arrivals', path, ['poisson', 'constant']);
    const given = (['rate', 'profile', 'trace'] as const).filter((k) => so[k] !== undefined);
    if (given.length !== 1) c.add(path, `an open source needs exactly one of rate, profile, trace (got ${given.join(', ') || 'none'})`);
    c.value(so, 'rate', path, Domains.nonNegative);
    const profile = c.arr(so.profile, `${path}.profile`, false);
    tooMany(c, profile, SpecLimits.traceEntries, `${path}.profile`, 'profile entries');
    const trace = c.arr(so.trace, `${path}.trace`, false);
    tooMany(c, trace, SpecLimits.traceEntries, `${path}.trace`, 'trace entries');
    profile.forEach((e, j) => {
      const pp = `${path}.profile[${j}]`;
      const pe = c.obj<NonNullable<SourceSpec['profile']>[number]>(e, pp, PROFILE_ENTRY_FIELDS);
      if (!pe) return;
      c.value(pe, 'at', pp, Domains.nonNegative, true);
      c.value(pe, 'rate', pp, Domains.nonNegative, true);
    });
    trace.forEach((t, j) => {
      if (typeof t !== 'number' || !(t >= 0)) c.add(`${path}.trace[${j}]`, `expected a time >= 0, got ${describeValue(t)}`);
    });
    if (so.users !== undefined || so.thinkTime !== undefined) c.add(path, 'users and thinkTime belong to closed sources');
  } else if (kind === 'closed') {
    c.value(so, 'users', path, Domains.users, true);
    c.duration(so, 'thinkTime', path, true);
    for (const k of ['rate', 'profile', 'trace', 'arrivals'] as const) if (so[k] !== undefined) c.add(`${path}.${k}`, 'not a field of a closed source');
  }
  checkPolicy(c, so.policy, `${path}.policy`);
  c.value(so, 'work', path, Domains.nonNegative);
}

/** What a scenario's validation reads of the rest of the spec. */
interface ScenarioContext {
  spec: Rec;
  scenarioKeys: Set<string>;
  /** Keys of the spec's shared events (what `omitEvents` may name). */
  baseEventKeys: Set<string>;
  /** Checks a scenario's own engine block against the fluid-steps bound. */
  checkSteps: (e: Rec | null, path: string) => void;
}

/** `scenarios[i]`: its own engine settings, parameters (within their ranges) and events. */
function validateScenario(c: Checker, v: unknown, i: number, ctx: ScenarioContext): void {
  const path = `scenarios[${i}]`;
  const sc = c.obj<ScenarioSpec>(v, path, SCENARIO_FIELDS);
  if (!sc) return;
  if (sc.engine !== undefined) {
    const ep = `${path}.engine`;
    const se = c.obj<EngineSpec>(sc.engine, ep, ENGINE_FIELDS);
    if (se) {
      c.oneOf(se, 'mode', ep, ['des', 'fluid']);
      c.literal(se, 'fluidStep', ep, Domains.positive);
      c.literal(se, 'maxEvents', ep, Domains.maxEvents);
      ctx.checkSteps(se, `${ep}.fluidStep`);
    }
  }
  c.unique(ctx.scenarioKeys, c.key(sc, 'key', path), `${path}.key`, 'scenario key');
  c.str(sc, 'title', path);
  c.str(sc, 'description', path);
  if (!('actionableKey' in sc)) c.add(`${path}.actionableKey`, 'expected a string or null, got nothing');
  else if (sc.actionableKey !== null && (typeof sc.actionableKey !== 'string' || !KEY_PATTERN.test(sc.actionableKey))) {
    c.add(`${path}.actionableKey`, `expected a kebab-case key or null, got ${describeValue(sc.actionableKey)}`);
  }
  if (sc.parameters !== undefined) {
    const ps = c.obj(sc.parameters, `${path}.parameters`, [...c.params.keys()]);
    if (ps) {
      for (const [name, value] of Object.entries(ps)) {
        const p = c.params.get(name);
        if (!p) continue;
        if (typeof value !== 'number' || value < p.min || value > p.max || (p.integer && !Number.isInteger(value))) {
          c.add(`${path}.parameters.${name}`, `expected ${p.integer ? 'an integer' : 'a number'} between ${p.min} and ${p.max} ${p.unit}, got ${describeValue(value)}`);
        }
      }
    }
  }
  const scEvents = c.arr(sc.events, `${path}.events`, false);
  tooMany(c, scEvents, SpecLimits.events, `${path}.events`, 'events');
  scEvents.forEach((ev, j) => checkEvent(c, ev, `${path}.events[${j}]`, ctx.spec, c.eventKeys));
  c.arr(sc.omitEvents, `${path}.omitEvents`, false).forEach((k, j) => {
    if (typeof k !== 'string' || !ctx.baseEventKeys.has(k)) c.add(`${path}.omitEvents[${j}]`, `expected the key of a base event, got ${describeValue(k)}`);
  });
}

/** `probes[i]`: a unique key and a metric of the spec's blocks. */
function validateProbe(c: Checker, v: unknown, i: number, probeKeys: Set<string>): void {
  const path = `probes[${i}]`;
  const p = c.obj<ProbeSpec>(v, path, PROBE_FIELDS);
  if (!p) return;
  c.unique(probeKeys, c.key(p, 'key', path), `${path}.key`, 'probe key');
  c.str(p, 'label', path);
  c.str(p, 'unit', path, false);
  const metric = c.str(p, 'metric', path);
  if (metric) {
    const parsed = parseMetricName(metric, c.ns);
    if (typeof parsed === 'string') c.add(`${path}.metric`, parsed);
  }
}

/** `figures[i]`: a unique name and its measures or value. */
function validateFigure(c: Checker, v: unknown, i: number, seenFigures: Set<string>, scenarioKeys: Set<string>): void {
  const path = `figures[${i}]`;
  const f = c.obj<FigureSpec>(v, path, FIGURE_FIELDS);
  if (!f) return;
  c.unique(seenFigures, c.key(f, 'name', path), `${path}.name`, 'figure name');
  c.str(f, 'label', path);
  c.str(f, 'unit', path);
  checkFormula(c, f, path, scenarioKeys, new Set());
}

/** `checks[i]`: kind and source, scenarios, measures and expectation. */
function validateCheck(c: Checker, v: unknown, i: number, checkNames: Set<string>, scenarioKeys: Set<string>, figureNames: Set<string>): void {
  const path = `checks[${i}]`;
  const ch = c.obj<CheckSpec>(v, path, CHECK_FIELDS);
  if (!ch) return;
  checkCheckKind(c, ch, path);
  c.unique(checkNames, c.key(ch, 'name', path), `${path}.name`, 'check name');
  c.str(ch, 'description', path);
  c.str(ch, 'unit', path);
  c.str(ch, 'ifFails', path, false);
  checkScenarioList(c, ch.scenarios, `${path}.scenarios`, scenarioKeys);
  const names = checkFormula(c, ch, path, scenarioKeys, figureNames);
  checkExpect(c, ch.expect, `${path}.expect`, names);
}
