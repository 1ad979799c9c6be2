import { Inject, Injectable, Logger } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import {
  canonicalJson,
  ENGINE_VERSION,
  hashRunInputs,
  ModelError,
  ModelParameterError,
  ModelSpecError,
  resolveParameters,
  SCENARIO_AS_HAPPENED,
  validateSpec,
  type ModelRunResult,
  type ModelSpec,
} from '@hindsight/models';
import { createHash } from 'node:crypto';
import { MODEL_EXECUTOR, MODEL_RUN_OPTIONS, type ExecutorStats, type ModelExecutor, type ModelRunOptions } from './model-executor';
import type { ModelRunRecord, ModelSpecRecord, ScenarioRecord, StoredSeries } from './model-runs.types';

type RunRow = Prisma.ModelRunGetPayload<object>;

export interface RunRequest {
  incidentSlug: string;
  scenarioKey: string;
  parameters?: Record<string, number>;
  seed?: number | null;
}

export interface IncidentModelView {
  incidentId: string;
  spec: ModelSpecRecord & { model: ModelSpec };
  defaultParameters: Record<string, number>;
  scenarios: ScenarioRecord[];
}

export interface RunOutcome {
  status: 'succeeded' | 'failed';
  durationMs: number;
}

export interface ScenarioComparison {
  scenario: ScenarioRecord;
  run: ModelRunRecord;
}

/**
 * Model specs, their binding to incidents, and runs. A run is identified by the hash of its
 * inputs (engine version, spec, scenario, resolved parameters, seed): asking the same question
 * twice returns the stored answer instead of computing it again, and concurrent identical
 * requests share one row.
 */
@Injectable()
export class ModelRunsService {
  private readonly logger = new Logger('ModelRuns');
  /** Jobs for the queue worker; set by the queue module when execution is `queue`. */
  enqueue: ((runId: string) => Promise<void>) | null = null;
  private readonly runListeners: ((outcome: RunOutcome) => void)[] = [];

  constructor(
    private readonly prisma: PrismaService,
    @Inject(MODEL_EXECUTOR) private readonly executor: ModelExecutor,
    @Inject(MODEL_RUN_OPTIONS) private readonly options: ModelRunOptions,
  ) {}

  /** Called after every run this process executes (for metrics); a listener cannot affect the run. */
  onRunFinished(listener: (outcome: RunOutcome) => void): void {
    this.runListeners.push(listener);
  }

  /** The executor's pool right now, when it has one. */
  executorStats(): ExecutorStats | null {
    return this.executor.stats?.() ?? null;
  }

  private runFinished(outcome: RunOutcome): void {
    for (const listener of this.runListeners) {
      try {
        listener(outcome);
      } catch {
        // Observers must never turn a finished run into a failed request.
      }
    }
  }

  // ---- specs and bindings ------------------------------------------------------------------

  /** Validates and stores a spec version; the same content again returns the stored version. */
  async createSpec(input: unknown): Promise<ModelSpecRecord> {
    const spec = this.validate(input);
    const checksum = specChecksum(spec);
    const existing = await this.prisma.modelSpec.findUnique({ where: { key_version: { key: spec.slug, version: spec.version } } });
    if (existing) {
      if (existing.checksum === checksum) return existing;
      throw new AppError('CONFLICT', `Model "${spec.slug}" version ${spec.version} already exists with other content; give the changed spec a new version.`, {
        field: 'spec.version',
      });
    }
    return this.prisma.modelSpec.create({
      data: { key: spec.slug, version: spec.version, title: spec.title, spec: spec as unknown as Prisma.InputJsonValue, checksum },
    });
  }

  /** Binds an incident to a spec version (the latest when none is named) and records its scenarios. */
  async attach(incidentSlug: string, specKey: string, version?: string | null, defaultParameters: Record<string, number> = {}): Promise<IncidentModelView> {
    const incident = await this.prisma.incident.findUnique({ where: { slug: incidentSlug }, select: { id: true } });
    if (!incident) throw AppError.notFound('Incident', incidentSlug);
    const specRow = version
      ? await this.prisma.modelSpec.findUnique({ where: { key_version: { key: specKey, version } } })
      : await this.prisma.modelSpec.findFirst({ where: { key: specKey }, orderBy: { createdAt: 'desc' } });
    if (!specRow) throw AppError.notFound('Model spec', version ? `${specKey}@${version}` : specKey);
    const spec = specRow.spec as unknown as ModelSpec;
    this.parameters(spec, defaultParameters);
    const defaults = defaultParameters;
    await this.prisma.$transaction(async (tx) => {
      await tx.incidentModel.upsert({
        where: { incidentId: incident.id },
        create: { incidentId: incident.id, specId: specRow.id, defaultParameters: defaults },
        update: { specId: specRow.id, defaultParameters: defaults },
      });
      await tx.scenario.deleteMany({ where: { incidentId: incident.id, key: { notIn: spec.scenarios.map((s) => s.key) } } });
      for (const [position, s] of spec.scenarios.entries()) {
        const data = { position, title: s.title, description: s.description, actionableKey: s.actionableKey };
        await tx.scenario.upsert({
          where: { incidentId_key: { incidentId: incident.id, key: s.key } },
          create: { incidentId: incident.id, key: s.key, ...data },
          update: data,
        });
      }
    });
    return (await this.modelOf(incident.id))!;
  }

  /** The model attached to an incident, or null when it has none. */
  async modelOf(incidentId: string): Promise<IncidentModelView | null> {
    return (await this.modelsOf([incidentId]))[0] ?? null;
  }

  /** Same order as `incidentIds`; one query whatever their number. */
  async modelsOf(incidentIds: readonly string[]): Promise<(IncidentModelView | null)[]> {
    const bindings = await this.prisma.incidentModel.findMany({
      where: { incidentId: { in: [...incidentIds] } },
      include: { spec: true, scenarios: { orderBy: { position: 'asc' } } },
    });
    const byIncident = new Map(
      bindings.map(({ spec: specRow, scenarios, defaultParameters, incidentId }) => [
        incidentId,
        { incidentId, spec: { ...specRow, model: specRow.spec as unknown as ModelSpec }, defaultParameters: defaultParameters as Record<string, number>, scenarios },
      ]),
    );
    return incidentIds.map((id) => byIncident.get(id) ?? null);
  }

  // ---- runs ----------------------------------------------------------------------------------

  /**
   * Runs one scenario (or returns the stored run of identical inputs). With inline execution the
   * run is finished when this returns; with a queue it may still be `queued`.
   */
  async run(request: RunRequest): Promise<ModelRunRecord> {
    const incident = await this.prisma.incident.findFirst({ where: { slug: request.incidentSlug, status: 'published' }, select: { id: true } });
    if (!incident) throw AppError.notFound('Incident', request.incidentSlug);
    const model = await this.modelOf(incident.id);
    if (!model) throw new AppError('NOT_FOUND', `Incident "${request.incidentSlug}" has no model attached.`, { field: 'incident' });
    return this.runFor(model, request.scenarioKey, request.parameters ?? {}, request.seed ?? this.options.defaultSeed);
  }

  async runFor(model: IncidentModelView, scenarioKey: string, overrides: Record<string, number>, seed: number): Promise<ModelRunRecord> {
    const spec = effectiveSpec(model.spec.model, model.defaultParameters);
    if (!spec.scenarios.some((s) => s.key === scenarioKey)) {
      throw AppError.badField('scenario', `unknown scenario "${scenarioKey}"; this model has ${spec.scenarios.map((s) => s.key).join(', ')}`);
    }
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw AppError.badField('seed', `expected an integer from 0 to ${2 ** 31 - 1}; got ${seed}`);
    this.parameters(spec, overrides);
    const inputHash = hashRunInputs({
      spec,
      scenarioKey,
      parameters: this.parameters(spec, overrides, scenarioKey),
      seed,
      mode: spec.engine.mode,
      fluidStep: spec.engine.fluidStep ?? 0.1,
      points: spec.points ?? 300,
    });
    const existing = await this.prisma.modelRun.findUnique({ where: { inputHash } });
    if (existing) return toRunRecord(existing);

    // Concurrent identical requests race here; the unique hash lets exactly one insert win.
    const inserted = await this.prisma.modelRun.createManyAndReturn({
      data: [
        {
          incidentId: model.incidentId,
          specId: model.spec.id,
          scenarioKey,
          inputHash,
          parameters: overrides,
          seed,
          engineVersion: ENGINE_VERSION,
          specVersion: model.spec.version,
        },
      ],
      skipDuplicates: true,
    });
    const row = inserted[0];
    if (!row) return toRunRecord(await this.prisma.modelRun.findUniqueOrThrow({ where: { inputHash } }));
    if (this.options.execution === 'queue' && this.enqueue) {
      await this.enqueue(row.id);
      return toRunRecord(row);
    }
    return this.execute(row.id);
  }

  /** Executes a queued run and stores its outcome. Used inline and by the queue worker. */
  async execute(runId: string): Promise<ModelRunRecord> {
    const claimed = await this.prisma.modelRun.updateMany({ where: { id: runId, status: 'queued' }, data: { status: 'running', startedAt: new Date() } });
    const row = await this.prisma.modelRun.findUniqueOrThrow({ where: { id: runId }, include: { spec: true, incident: { select: { model: true } } } });
    if (claimed.count === 0) return toRunRecord(row);
    const defaults = (row.incident.model?.defaultParameters ?? {}) as Record<string, number>;
    const started = process.hrtime.bigint();
    try {
      const result = await this.executor.execute({
        spec: effectiveSpec(row.spec.spec as unknown as ModelSpec, defaults),
        scenarioKey: row.scenarioKey,
        parameters: row.parameters as Record<string, number>,
        seed: row.seed,
      });
      const done = timing(started);
      this.runFinished({ status: 'succeeded', durationMs: done.durationMs });
      return toRunRecord(await this.prisma.modelRun.update({ where: { id: runId }, data: { status: 'succeeded', ...outcomeOf(result), ...done } }));
    } catch (error) {
      if (error instanceof ModelError && error.code === 'QUEUE_FULL') {
        // Nothing ran: forget the row so the same request can be made again later.
        await this.prisma.modelRun.delete({ where: { id: runId } });
        throw new AppError('TOO_MANY_REQUESTS', 'Every model worker is busy and the wait queue is full; try again in a moment.', { retryAfterSeconds: 1 });
      }
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn(`run ${runId} failed: ${message}`);
      const done = timing(started);
      this.runFinished({ status: 'failed', durationMs: done.durationMs });
      return toRunRecord(await this.prisma.modelRun.update({ where: { id: runId }, data: { status: 'failed', error: message, ...done } }));
    }
  }

  async findRun(id: string): Promise<ModelRunRecord> {
    const row = /^[0-9a-f-]{36}$/.test(id) ? await this.prisma.modelRun.findUnique({ where: { id } }) : null;
    if (!row) throw AppError.notFound('Model run', id);
    return toRunRecord(row);
  }

  /** The newest run of each scenario of these incidents with no caller overrides, in one query. */
  async latestRuns(incidentIds: readonly string[]): Promise<Map<string, ModelRunRecord>> {
    if (incidentIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT DISTINCT ON (r."incidentId", r."scenarioKey") r."id"::text AS id
      FROM "ModelRun" r JOIN "IncidentModel" m ON m."incidentId" = r."incidentId" AND m."specId" = r."specId"
      WHERE r."incidentId" IN (${Prisma.join(incidentIds.map((id) => Prisma.sql`${id}::uuid`))})
        AND r."parameters" = '{}'::jsonb AND r."seed" = ${this.options.defaultSeed}
      ORDER BY r."incidentId", r."scenarioKey", (r."status" = 'succeeded') DESC, r."queuedAt" DESC`;
    if (rows.length === 0) return new Map();
    const runs = await this.prisma.modelRun.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
    return new Map(runs.map((r) => [`${r.incidentId}:${r.scenarioKey}`, toRunRecord(r)]));
  }

  /** The as-happened run beside each fix scenario, with the same parameters and seed. */
  async compare(incidentSlug: string, parameters: Record<string, number> = {}, seed?: number | null): Promise<ScenarioComparison[]> {
    const incident = await this.prisma.incident.findFirst({ where: { slug: incidentSlug, status: 'published' }, select: { id: true } });
    if (!incident) throw AppError.notFound('Incident', incidentSlug);
    const model = await this.modelOf(incident.id);
    if (!model) throw new AppError('NOT_FOUND', `Incident "${incidentSlug}" has no model attached.`, { field: 'incident' });
    const comparisons: ScenarioComparison[] = [];
    // Sequential on purpose: the worker pool is the bound on concurrency, not this loop.
    for (const scenario of model.scenarios) {
      comparisons.push({ scenario, run: await this.runFor(model, scenario.key, parameters, seed ?? this.options.defaultSeed) });
    }
    return comparisons;
  }

  private validate(input: unknown): ModelSpec {
    try {
      return validateSpec(input);
    } catch (error) {
      if (error instanceof ModelSpecError) {
        throw AppError.badInput(error.issues.map((i) => ({ field: `spec.${i.path}`, reason: i.reason })));
      }
      throw error;
    }
  }

  private parameters(spec: ModelSpec, overrides: Record<string, unknown>, scenarioKey?: string): Record<string, number> {
    try {
      return resolveParameters(spec, overrides, scenarioKey);
    } catch (error) {
      if (error instanceof ModelParameterError) {
        throw new AppError('BAD_USER_INPUT', `parameters.${error.parameter}: ${error.reason}`, {
          field: `parameters.${error.parameter}`,
          parameter: error.parameter,
          allowed: error.allowed,
        });
      }
      throw error;
    }
  }
}

export { SCENARIO_AS_HAPPENED };

/**
 * The spec as this incident uses it: the incident's default parameters replace the spec's own
 * defaults, so scenario values and a caller's overrides still apply on top of them.
 */
export function effectiveSpec(spec: ModelSpec, defaults: Record<string, number>): ModelSpec {
  if (Object.keys(defaults).length === 0) return spec;
  return { ...spec, parameters: spec.parameters.map((p) => (p.name in defaults ? { ...p, default: defaults[p.name]! } : p)) };
}

export function specChecksum(spec: ModelSpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}

function timing(started: bigint) {
  return { finishedAt: new Date(), durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6) };
}

function outcomeOf(result: ModelRunResult) {
  const series: StoredSeries = { time: result.time, series: result.series, events: result.events, timeOrigin: result.timeOrigin, horizon: result.horizon };
  return {
    summary: result.summary as unknown as Prisma.InputJsonValue,
    series: series as unknown as Prisma.InputJsonValue,
    checks: result.checks as unknown as Prisma.InputJsonValue,
    simulatedEvents: result.stats.totalEvents,
  };
}

export function toRunRecord(row: RunRow): ModelRunRecord {
  return {
    ...row,
    parameters: row.parameters as Record<string, number>,
    summary: row.summary as unknown as ModelRunRecord['summary'],
    series: row.series as unknown as StoredSeries | null,
    checks: row.checks as unknown as ModelRunRecord['checks'],
  };
}
