import { Inject, Injectable, Logger } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import {
  canonicalJson,
  ENGINE_VERSION,
  DEFAULT_FLUID_STEP,
  DEFAULT_POINTS,
  hashRunInputs,
  ModelError,
  parameterConflicts,
  resolveParameters,
  type ParameterConflict,
  SCENARIO_AS_HAPPENED,
  validateSpec,
  type ModelSpec,
} from '@hindsight/models';
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  DETERMINISTIC_FAILURES,
  MODEL_EXECUTOR,
  MODEL_RUN_OPTIONS,
  resolveRunOptions,
  type ExecutorStats,
  type ModelExecutor,
  type ModelRunOptions,
  type ResolvedModelRunOptions,
} from './model-executor';
import type { ModelRunRecord, ModelSpecRecord, ScenarioRecord, StoredSeries } from './model-runs.types';

type RunRow = Prisma.ModelRunGetPayload<object>;

/** What a new run row is inserted with; `clientKey` is the hashed client, counted for the quota. */
type NewRun = Pick<ModelRunRecord, 'incidentId' | 'specId' | 'scenarioKey' | 'inputHash' | 'parameters' | 'seed' | 'engineVersion' | 'specVersion'> & {
  clientKey: string | null;
};

/** Advisory-lock key of the retention sweep: one process at a time deletes expired runs. */
const RETENTION_LOCK = 0x4d52_0003;
const RETENTION_BATCH = 20;
const EXPIRY_BATCH = 500;
const SWEEP_BATCH = 20;
/** After the queue was found full, new runs are refused without a query for this long. */
const QUEUE_FULL_MEMO_MS = 500;
/** A `running` run nobody holds: its lease ran out, or it was claimed before runs had leases. */
const LEASE_LOST = Prisma.sql`("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < now())`;

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
  /** What-if values this scenario did not apply because it sets the parameter itself (its fix wins). */
  conflicts: ParameterConflict[];
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
  /**
   * Jobs for the queue worker; set by the queue wiring when execution is `queue`. `attempt`
   * tells a re-queued run's job from the lost one.
   */
  enqueue: ((runId: string, attempt: number) => Promise<void>) | null = null;
  private readonly options: ResolvedModelRunOptions;
  /** This process, as the holder of the runs it executes. */
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly inFlight = new Map<string, Promise<void>>();
  private admitted = 0;
  private queueFullUntil = 0;
  private closing = false;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly runListeners: ((outcome: RunOutcome) => void)[] = [];

  constructor(
    private readonly prisma: PrismaService,
    @Inject(MODEL_EXECUTOR) private readonly executor: ModelExecutor,
    @Inject(MODEL_RUN_OPTIONS) options: ModelRunOptions,
  ) {
    this.options = resolveRunOptions(options);
  }

  /** Where runs execute: in this process's worker threads, or as jobs for `npm run worker` processes. */
  get execution(): 'inline' | 'queue' {
    return this.options.execution === 'queue' && this.enqueue !== null ? 'queue' : 'inline';
  }

  /** The seed of runs that name none. */
  get defaultSeed(): number {
    return this.options.defaultSeed;
  }

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
  /** `db`: a transaction to write in (so a caller can store and attach as one write); the client otherwise. */
  async createSpec(input: unknown, db: Prisma.TransactionClient = this.prisma): Promise<ModelSpecRecord> {
    const spec = validateSpec(input);
    const checksum = specChecksum(spec);
    const existing = await db.modelSpec.findUnique({ where: { key_version: { key: spec.slug, version: spec.version } } });
    if (existing) {
      if (existing.checksum === checksum) return existing;
      throw new AppError('CONFLICT', `Model "${spec.slug}" version ${spec.version} already exists with other content; give the changed spec a new version.`, {
        field: 'spec.version',
      });
    }
    return db.modelSpec.create({
      data: { key: spec.slug, version: spec.version, title: spec.title, spec: spec as unknown as Prisma.InputJsonValue, checksum },
    });
  }

  /** An incident by its slug or a slug it had before a rename (as the incident pages and queries resolve it). */
  private async incidentBySlug(slug: string, { publishedOnly }: { publishedOnly: boolean }, db: Prisma.TransactionClient = this.prisma): Promise<{ id: string }> {
    const incident = await db.incident.findFirst({
      where: { ...(publishedOnly ? { status: 'published' as const } : {}), OR: [{ slug }, { slugAliases: { some: { slug } } }] },
      select: { id: true },
    });
    if (!incident) throw AppError.notFound('Incident', slug, 'incident');
    return incident;
  }

  /**
   * Binds an incident to a spec version (the latest when none is named) and records its scenarios.
   * `tx`: a transaction the caller already holds (the binding then commits or rolls back with it).
   */
  async attach(incidentSlug: string, specKey: string, version?: string | null, defaultParameters: Record<string, number> = {}, tx?: Prisma.TransactionClient): Promise<IncidentModelView> {
    const db = tx ?? this.prisma;
    const incident = await this.incidentBySlug(incidentSlug, { publishedOnly: false }, db);
    const specRow = version
      ? await db.modelSpec.findUnique({ where: { key_version: { key: specKey, version } } })
      : await db.modelSpec.findFirst({ where: { key: specKey }, orderBy: { createdAt: 'desc' } });
    if (!specRow) {
      const known = version ? (await db.modelSpec.count({ where: { key: specKey } })) > 0 : false;
      throw AppError.notFound('Model spec', version ? `${specKey}@${version}` : specKey, known ? 'version' : 'model');
    }
    const spec = specRow.spec as unknown as ModelSpec;
    resolveParameters(spec, defaultParameters);
    const defaults = defaultParameters;
    const bind = async (w: Prisma.TransactionClient) => {
      await w.incidentModel.upsert({
        where: { incidentId: incident.id },
        create: { incidentId: incident.id, specId: specRow.id, defaultParameters: defaults },
        update: { specId: specRow.id, defaultParameters: defaults },
      });
      await w.scenario.deleteMany({ where: { incidentId: incident.id, key: { notIn: spec.scenarios.map((s) => s.key) } } });
      for (const [position, s] of spec.scenarios.entries()) {
        const data = { position, title: s.title, description: s.description, actionableKey: s.actionableKey };
        await w.scenario.upsert({
          where: { incidentId_key: { incidentId: incident.id, key: s.key } },
          create: { incidentId: incident.id, key: s.key, ...data },
          update: data,
        });
      }
    };
    if (tx) {
      await bind(tx);
      return (await this.modelsOf([incident.id], tx))[0]!;
    }
    await this.prisma.$transaction(bind);
    return (await this.modelOf(incident.id))!;
  }

  /** The model attached to an incident, or null when it has none. */
  async modelOf(incidentId: string): Promise<IncidentModelView | null> {
    return (await this.modelsOf([incidentId]))[0] ?? null;
  }

  /** Same order as `incidentIds`; one query whatever their number. */
  async modelsOf(incidentIds: readonly string[], db: Prisma.TransactionClient = this.prisma): Promise<(IncidentModelView | null)[]> {
    const bindings = await db.incidentModel.findMany({
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
   * run is finished when this returns; with a queue it may still be `queued`. `client` (a token
   * or a client address) is counted against the per-client quota when a new run is stored.
   */
  async run(request: RunRequest, client?: string | null): Promise<ModelRunRecord> {
    // The API's entry point takes its place in the pool before any database work, so a burst
    // beyond the pool's room is refused at once, inputs already stored included (read those with
    // their run id or a scenario's latestRun): under overload a refusal must cost nothing.
    const release = this.admit();
    try {
      const incident = await this.incidentBySlug(request.incidentSlug, { publishedOnly: true });
      const model = await this.modelOf(incident.id);
      if (!model) throw new AppError('NOT_FOUND', `Incident "${request.incidentSlug}" has no model attached.`, { field: 'incident' });
      return await this.runInputs(model, request.scenarioKey, request.parameters ?? {}, request.seed ?? this.options.defaultSeed, client, release);
    } finally {
      release();
    }
  }

  /** Like `run`, for a caller that holds the model view (pages): a stored answer is returned even while the pool is full. */
  async runFor(model: IncidentModelView, scenarioKey: string, overrides: Record<string, number>, seed: number, client?: string | null): Promise<ModelRunRecord> {
    return this.runInputs(model, scenarioKey, overrides, seed, client, null);
  }

  private async runInputs(
    model: IncidentModelView,
    scenarioKey: string,
    overrides: Record<string, number>,
    seed: number,
    client: string | null | undefined,
    /** The caller's place in the pool when it took one already; released once the pool holds the run. */
    admitted: (() => void) | null,
  ): Promise<ModelRunRecord> {
    const spec = effectiveSpec(model.spec.model, model.defaultParameters);
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw AppError.badField('seed', `expected an integer from 0 to ${2 ** 31 - 1}; got ${seed}`);
    resolveParameters(spec, overrides);
    if (!spec.scenarios.some((s) => s.key === scenarioKey)) {
      throw AppError.badField('scenario', `unknown scenario "${scenarioKey}"; this model has ${spec.scenarios.map((s) => s.key).join(', ')}`);
    }
    // The same inputs as the engine's own cache key (a scenario's own mode and step included), so a
    // stored run's hash equals its result's; computed here without validating the spec again.
    const own = spec.scenarios.find((s) => s.key === scenarioKey)?.engine ?? {};
    const inputHash = hashRunInputs({
      spec,
      scenarioKey,
      parameters: resolveParameters(spec, overrides, scenarioKey),
      callerParameters: resolveParameters(spec, overrides),
      seed,
      mode: own.mode ?? spec.engine.mode,
      fluidStep: own.fluidStep ?? spec.engine.fluidStep ?? DEFAULT_FLUID_STEP,
      points: Math.max(10, Math.min(500, Math.round(spec.points ?? DEFAULT_POINTS))),
    });
    const existing = await this.prisma.modelRun.findUnique({ where: { inputHash } });
    if (existing && this.isAnswer(existing)) return toRunRecord(existing);

    // From here on the run needs a worker: refuse at once when none will have room for it,
    // before any further database work, instead of letting callers wait to be refused.
    const release = admitted ?? this.admit();
    try {
      if (existing) return await this.rerun(existing, release);
      const clientKey = client ? createHash('sha256').update(client).digest('hex').slice(0, 32) : null;
      const row = await this.insertRun({
        incidentId: model.incidentId,
        specId: model.spec.id,
        scenarioKey,
        inputHash,
        parameters: overrides,
        seed,
        engineVersion: ENGINE_VERSION,
        specVersion: model.spec.version,
        clientKey,
      });
      // Concurrent identical requests race to insert; the unique hash lets exactly one win.
      if (!row) return toRunRecord(await this.prisma.modelRun.findUniqueOrThrow({ where: { inputHash } }));
      return await this.dispatch(row, release);
    } finally {
      release();
    }
  }

  /**
   * Executes a queued run (or one whose lease expired) and stores its outcome. Used inline, by the
   * queue worker and by the sweep that reclaims lost runs. A run is claimed with a lease that a
   * heartbeat renews; a claim without attempts left fails the run with its reason.
   */
  async execute(runId: string, onHandedOver?: () => void): Promise<ModelRunRecord> {
    const claimed = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE "ModelRun" SET "status" = 'running', "startedAt" = now(), "attempts" = "attempts" + 1,
        "leaseOwner" = ${this.owner}, "leaseExpiresAt" = now() + ${this.options.leaseMs}::int * interval '1 millisecond',
        "error" = NULL, "errorCode" = NULL
      WHERE "id" = ${runId}::uuid AND "attempts" < ${this.options.maxAttempts}
        AND ("status" = 'queued' OR ("status" = 'running' AND ${LEASE_LOST}))
      RETURNING "id"::text AS id`;
    if (claimed.length === 0) {
      await this.failExhausted(runId);
      return toRunRecord(await this.prisma.modelRun.findUniqueOrThrow({ where: { id: runId } }));
    }
    const started = process.hrtime.bigint();
    const heartbeat = setInterval(() => void this.renewLease(runId), Math.max(100, Math.floor(this.options.leaseMs / 3)));
    heartbeat.unref();
    const work = (async () => {
      try {
        const row = await this.prisma.modelRun.findUniqueOrThrow({ where: { id: runId }, include: { spec: true, incident: { select: { model: true } } } });
        const defaults = (row.incident.model?.defaultParameters ?? {}) as Record<string, number>;
        const result = this.executor.execute({
          spec: effectiveSpec(row.spec.spec as unknown as ModelSpec, defaults),
          scenarioKey: row.scenarioKey,
          parameters: row.parameters as Record<string, number>,
          seed: row.seed,
        });
        // The pool now counts this run itself: the caller's admission place is free again.
        onHandedOver?.();
        const json = await result;
        clearInterval(heartbeat);
        await this.storeResult(runId, json, started);
        this.runFinished({ status: 'succeeded', durationMs: timing(started).durationMs });
      } catch (error) {
        clearInterval(heartbeat);
        if (error instanceof ModelError && error.code === 'QUEUE_FULL') {
          // Nothing ran: forget the row so the same request can be made again later.
          await this.prisma.modelRun.deleteMany({ where: { id: runId, leaseOwner: this.owner } });
          throw new AppError('TOO_MANY_REQUESTS', 'Every model worker is busy and the wait queue is full; try again in a moment.', { retryAfterSeconds: 1 });
        }
        const message = error instanceof Error ? error.message : String(error);
        const code = error instanceof ModelError ? error.code : 'UNEXPECTED';
        this.logger.warn(`run ${runId} failed (${code}): ${message}`);
        await this.storeFailure(runId, code, message, started);
        this.runFinished({ status: 'failed', durationMs: timing(started).durationMs });
      }
    })();
    this.inFlight.set(runId, work);
    try {
      await work;
    } finally {
      this.inFlight.delete(runId);
    }
    return toRunRecord(await this.prisma.modelRun.findUniqueOrThrow({ where: { id: runId } }));
  }

  /**
   * Gives lost runs back: a `running` run whose lease expired (its process died or hung) is
   * executed again while attempts remain, or failed with the reason. With inline execution this
   * process runs them; with a queue they are queued again for the workers. Also deletes unpinned
   * runs past the retention age, in bounded batches, by one process at a time.
   */
  async sweep(): Promise<{ reclaimed: string[]; failed: number; expired: number }> {
    const failed = await this.prisma.$executeRaw`
      UPDATE "ModelRun" SET "status" = 'failed', "errorCode" = 'LEASE_EXPIRED', "finishedAt" = now(), "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
        "error" = 'the run was lost ' || "attempts" || ' times (its process stopped or stopped answering); it is not retried again'
      WHERE "status" = 'running' AND ${LEASE_LOST} AND "attempts" >= ${this.options.maxAttempts}`;
    const stale = await this.prisma.$queryRaw<{ id: string; attempts: number }[]>`
      SELECT "id"::text AS id, "attempts" FROM "ModelRun"
      WHERE ("status" = 'running' AND ${LEASE_LOST})
         OR (${this.options.execution === 'inline'} AND "status" = 'queued' AND "queuedAt" < now() - ${this.options.leaseMs}::int * interval '1 millisecond')
      ORDER BY "queuedAt" LIMIT ${SWEEP_BATCH}`;
    const reclaimed: string[] = [];
    for (const run of stale) {
      if (this.closing) break;
      if (this.options.execution === 'queue' && this.enqueue) {
        const requeued = await this.prisma.$executeRaw`
          UPDATE "ModelRun" SET "status" = 'queued', "leaseOwner" = NULL, "leaseExpiresAt" = NULL
          WHERE "id" = ${run.id}::uuid AND "status" = 'running' AND ${LEASE_LOST}`;
        if (requeued === 0) continue;
        await this.enqueue(run.id, run.attempts);
        reclaimed.push(run.id);
      } else {
        if (this.room() <= 0) break;
        reclaimed.push(run.id);
        void this.execute(run.id).catch((error: Error) => this.logger.warn(`reclaimed run ${run.id} not run: ${error.message}`));
      }
    }
    if (reclaimed.length > 0) this.logger.log(`reclaimed ${reclaimed.length} lost model runs`);
    return { reclaimed, failed, expired: await this.deleteExpired() };
  }

  /**
   * Starts the periodic sweep, every half lease, the first one half a lease after start so start-up
   * work is not delayed. A run whose process died is reclaimed within one and a half leases.
   */
  startSweeping(): void {
    if (this.sweeper || this.closing) return;
    const tick = () => void this.sweep().catch((error: Error) => this.logger.warn(`sweep failed: ${error.message}`));
    this.sweeper = setInterval(tick, Math.max(500, Math.floor(this.options.leaseMs / 2)));
    this.sweeper.unref();
  }

  /**
   * Graceful shutdown: refuses new executions, waits up to `deadlineMs` for runs in progress in
   * this process, then releases what is left: inline, failed with "interrupted by shutdown" (not a
   * cached answer, so the same inputs run again when asked); in a queue worker, queued again for
   * another worker. No run is left `running` by this process.
   */
  async drain(deadlineMs: number = this.options.drainMs): Promise<{ finished: number; interrupted: number }> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    const pending = [...this.inFlight.values()];
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(pending), new Promise((resolve) => (timer = setTimeout(resolve, deadlineMs)))]);
    clearTimeout(timer);
    if (this.options.execution === 'queue' && this.enqueue) {
      // A queue worker hands its unfinished runs back to the queue for another worker.
      const released = await this.prisma.$queryRaw<{ id: string; attempts: number }[]>`
        UPDATE "ModelRun" SET "status" = 'queued', "leaseOwner" = NULL, "leaseExpiresAt" = NULL
        WHERE "leaseOwner" = ${this.owner} AND "status" = 'running' RETURNING "id"::text AS id, "attempts"`;
      for (const run of released) await this.enqueue(run.id, run.attempts);
      if (released.length > 0) this.logger.warn(`${released.length} model runs handed back to the queue at shutdown`);
      return { finished: pending.length - released.length, interrupted: released.length };
    }
    const interrupted = await this.prisma.$executeRaw`
      UPDATE "ModelRun" SET "status" = 'failed', "errorCode" = 'RUN_INTERRUPTED', "error" = 'interrupted by shutdown', "finishedAt" = now(),
        "leaseOwner" = NULL, "leaseExpiresAt" = NULL
      WHERE "leaseOwner" = ${this.owner} AND "status" = 'running'`;
    if (interrupted > 0) this.logger.warn(`${interrupted} model runs interrupted by shutdown`);
    return { finished: pending.length - interrupted, interrupted };
  }

  /** Runs in progress in this process. */
  get runsInProgress(): number {
    return this.inFlight.size;
  }

  /** A stored run that answers its inputs: a success, a deterministic failure, or one in progress or waiting. */
  private isAnswer(row: RunRow): boolean {
    switch (row.status) {
      case 'succeeded':
        return true;
      case 'failed':
        return row.errorCode !== null && DETERMINISTIC_FAILURES.has(row.errorCode);
      case 'running':
        // Judged by this clock; the claim itself is decided by the database's.
        return row.leaseExpiresAt !== null && row.leaseExpiresAt.getTime() > Date.now();
      case 'queued':
        // Waiting for a queue worker; inline, a queued row older than a lease was orphaned.
        return this.options.execution === 'queue' || Date.now() - row.queuedAt.getTime() < this.options.leaseMs;
    }
  }

  /** Runs again a stored run that is not an answer (machine-dependent failure, lost lease, orphan). */
  private async rerun(row: RunRow, onHandedOver: () => void): Promise<ModelRunRecord> {
    if (row.status === 'failed') {
      const reset = await this.prisma.modelRun.updateMany({
        where: { id: row.id, status: 'failed', errorCode: row.errorCode },
        data: { status: 'queued', attempts: 0, error: null, errorCode: null, startedAt: null, finishedAt: null, durationMs: null, queuedAt: new Date() },
      });
      if (reset.count === 0) return toRunRecord(await this.prisma.modelRun.findUniqueOrThrow({ where: { id: row.id } }));
    }
    return this.dispatch({ ...row, status: row.status === 'failed' ? 'queued' : row.status }, onHandedOver);
  }

  private async dispatch(row: RunRow, onHandedOver: () => void): Promise<ModelRunRecord> {
    if (this.options.execution === 'queue' && this.enqueue) {
      if (row.status === 'running') {
        // A lost lease: the sweep gives it back to the queue.
        return toRunRecord(row);
      }
      await this.enqueue(row.id, row.attempts);
      return toRunRecord(await this.prisma.modelRun.findUniqueOrThrow({ where: { id: row.id } }));
    }
    return this.execute(row.id, onHandedOver);
  }

  /**
   * Refuses at once what cannot run soon, counting callers admitted but not yet done with: a
   * closing service; inline, a pool whose workers and wait places are all taken; with a queue,
   * more callers at once than runs may wait (no more than that many could be queued anyway), or a
   * queue found full a moment ago.
   */
  private admit(): () => void {
    this.assertRoom();
    this.admitted++;
    let released = false;
    return () => {
      if (!released) this.admitted--;
      released = true;
    };
  }

  private assertRoom(): void {
    if (this.closing) throw new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down; try again in a moment.', { reason: 'SERVER_BUSY', retryAfterSeconds: 1 });
    if (this.options.execution === 'queue' && this.enqueue) {
      if (Date.now() < this.queueFullUntil || this.admitted >= this.options.maxPending) throw this.pendingError(this.options.maxPending);
      return;
    }
    if (this.room() <= 0) {
      throw new AppError('TOO_MANY_REQUESTS', 'Every model worker is busy and the wait queue is full; try again in a moment.', { retryAfterSeconds: 1 });
    }
  }

  private room(): number {
    const room = this.executor.room?.() ?? Number.POSITIVE_INFINITY;
    return room - this.admitted;
  }

  /**
   * Stores a new run unless an admission bound says no: the per-client quota and, in queue mode,
   * the number of runs waiting for a worker. Both are read in one statement first, so a refusal
   * costs one query and writes nothing; the insert repeats the conditions, so requests racing past
   * the first check can overshoot a bound only by the few that insert at the same instant. No
   * transaction holds a connection or a lock while others wait. After an insert, this scenario's
   * unpinned runs beyond the retained number are deleted.
   */
  private async insertRun(data: NewRun): Promise<RunRow | null> {
    const o = this.options;
    const quota = data.clientKey !== null && o.quotaRuns > 0;
    const pending = o.execution === 'queue' && this.enqueue !== null;
    const window = Prisma.sql`${o.quotaWindowSeconds}::int * interval '1 second'`;
    const used = Prisma.sql`(SELECT count(*)::int FROM "ModelRun" WHERE "clientKey" = ${data.clientKey} AND "queuedAt" > now() - ${window})`;
    const waiting = Prisma.sql`(SELECT count(*)::int FROM (SELECT 1 FROM "ModelRun" WHERE "status" = 'queued' LIMIT ${o.maxPending}::int) AS w)`;
    if (quota || pending) {
      const [counts] = await this.prisma.$queryRaw<{ used: number; oldest: Date | null; waiting: number }[]>`
        SELECT ${quota ? used : Prisma.sql`0`} AS used,
          ${quota ? Prisma.sql`(SELECT min("queuedAt") FROM "ModelRun" WHERE "clientKey" = ${data.clientKey} AND "queuedAt" > now() - ${window})` : Prisma.sql`NULL::timestamptz`} AS oldest,
          ${pending ? waiting : Prisma.sql`0`} AS waiting`;
      if (quota && counts && counts.used >= o.quotaRuns) throw this.quotaError(counts.used, counts.oldest);
      if (pending && counts && counts.waiting >= o.maxPending) {
        this.queueFullUntil = Date.now() + QUEUE_FULL_MEMO_MS;
        throw this.pendingError(counts.waiting);
      }
    }
    const inserted = await this.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO "ModelRun" ("incidentId", "specId", "scenarioKey", "inputHash", "parameters", "seed", "engineVersion", "specVersion", "clientKey")
      SELECT ${data.incidentId}::uuid, ${data.specId}::uuid, ${data.scenarioKey}, ${data.inputHash}, ${JSON.stringify(data.parameters)}::jsonb, ${data.seed}::int,
        ${data.engineVersion}, ${data.specVersion}, ${data.clientKey}
      WHERE ${quota ? Prisma.sql`${used} < ${o.quotaRuns}::int` : Prisma.sql`TRUE`} AND ${pending ? Prisma.sql`${waiting} < ${o.maxPending}::int` : Prisma.sql`TRUE`}
      ON CONFLICT ("inputHash") DO NOTHING
      RETURNING "id"::text AS id`;
    const id = inserted[0]?.id;
    if (!id) {
      // Either an identical request inserted first (its run is the answer) or a bound was reached
      // between the check and the insert.
      if (await this.prisma.modelRun.findUnique({ where: { inputHash: data.inputHash }, select: { id: true } })) return null;
      if (!quota) this.queueFullUntil = Date.now() + QUEUE_FULL_MEMO_MS;
      throw quota ? this.quotaError(o.quotaRuns, null) : this.pendingError(o.maxPending);
    }
    // Bounded growth: beyond the newest `retainPerScenario` unpinned runs of this scenario (this one
    // included), finished ones go, a few per insert so the delete stays small. Pinned runs (default
    // parameters and seed: each scenario's latestRun and its actionable's verdict) and runs in
    // progress are kept.
    await this.prisma.$executeRaw`
      DELETE FROM "ModelRun" WHERE "id" IN (
        SELECT "id" FROM (
          SELECT "id", "status" FROM "ModelRun"
          WHERE "incidentId" = ${data.incidentId}::uuid AND "scenarioKey" = ${data.scenarioKey}
            AND NOT ("parameters" = '{}'::jsonb AND "seed" = ${o.defaultSeed}::int)
          ORDER BY "queuedAt" DESC OFFSET ${o.retainPerScenario}::int LIMIT ${RETENTION_BATCH}::int) AS old
        WHERE "status" IN ('succeeded', 'failed'))`;
    return this.prisma.modelRun.findUniqueOrThrow({ where: { id } });
  }

  private quotaError(used: number, oldest: Date | null): AppError {
    const o = this.options;
    const retryAfterSeconds = oldest ? Math.max(1, Math.ceil((oldest.getTime() + o.quotaWindowSeconds * 1000 - Date.now()) / 1000)) : o.quotaWindowSeconds;
    return new AppError('TOO_MANY_REQUESTS', `This client has stored ${used} new model runs in the last ${o.quotaWindowSeconds} s, the most allowed; stored runs can still be read.`, {
      retryAfterSeconds,
      quota: o.quotaRuns,
      windowSeconds: o.quotaWindowSeconds,
    });
  }

  private pendingError(waiting: number): AppError {
    return new AppError('TOO_MANY_REQUESTS', `${waiting} model runs are already waiting for a worker, the most allowed; try again in a moment.`, {
      retryAfterSeconds: 2,
      maxPending: this.options.maxPending,
    });
  }

  /** Unpinned finished runs older than the retention age, a batch at a time, one process at a time. */
  private async deleteExpired(): Promise<number> {
    if (this.options.retainDays <= 0) return 0;
    return this.prisma.$transaction(async (tx) => {
      const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK}::int, 0) AS locked`;
      if (!lock?.locked) return 0;
      return tx.$executeRaw`
        DELETE FROM "ModelRun" WHERE "id" IN (
          SELECT "id" FROM "ModelRun"
          WHERE "queuedAt" < now() - ${this.options.retainDays}::int * interval '1 day' AND "status" IN ('succeeded', 'failed')
            AND NOT ("parameters" = '{}'::jsonb AND "seed" = ${this.options.defaultSeed}::int)
          ORDER BY "queuedAt" LIMIT ${EXPIRY_BATCH})`;
    });
  }

  private async renewLease(runId: string): Promise<void> {
    try {
      await this.prisma.$executeRaw`
        UPDATE "ModelRun" SET "leaseExpiresAt" = now() + ${this.options.leaseMs}::int * interval '1 millisecond'
        WHERE "id" = ${runId}::uuid AND "leaseOwner" = ${this.owner} AND "status" = 'running'`;
    } catch (error) {
      this.logger.warn(`lease of run ${runId} not renewed: ${(error as Error).message}`);
    }
  }

  /**
   * The worker's JSON goes to Postgres as it is: the calling thread neither parses nor re-serialises
   * it. Only the holder of the lease may store an outcome.
   */
  private async storeResult(runId: string, json: string, started: bigint): Promise<void> {
    const { durationMs } = timing(started);
    const stored = await this.prisma.$executeRaw`
      UPDATE "ModelRun" SET "status" = 'succeeded', "finishedAt" = now(), "durationMs" = ${durationMs}::int,
        "summary" = r.v -> 'summary', "checks" = r.v -> 'checks',
        "series" = jsonb_build_object('time', r.v -> 'time', 'series', r.v -> 'series', 'events', r.v -> 'events', 'timeOrigin', r.v -> 'timeOrigin', 'horizon', r.v -> 'horizon'),
        "failure" = NULLIF(r.v -> 'failure', 'null'::jsonb), "verdict" = NULLIF(r.v -> 'verdict', 'null'::jsonb),
        "simulatedEvents" = (r.v -> 'stats' ->> 'totalEvents')::int, "leaseOwner" = NULL, "leaseExpiresAt" = NULL
      FROM (SELECT ${json}::jsonb AS v) AS r
      WHERE "id" = ${runId}::uuid AND "leaseOwner" = ${this.owner} AND "status" = 'running'`;
    if (stored === 0) this.logger.warn(`run ${runId} finished after its lease passed to another process; its result was not stored`);
  }

  private async storeFailure(runId: string, code: string, message: string, started: bigint): Promise<void> {
    await this.prisma.modelRun.updateMany({
      where: { id: runId, leaseOwner: this.owner, status: 'running' },
      data: { status: 'failed', error: message, errorCode: code, ...timing(started), leaseOwner: null, leaseExpiresAt: null },
    });
  }

  /** A claim refused for want of attempts: a run lost too often is failed, with the reason. */
  private async failExhausted(runId: string): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE "ModelRun" SET "status" = 'failed', "errorCode" = 'LEASE_EXPIRED', "finishedAt" = now(), "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
        "error" = 'the run was lost ' || "attempts" || ' times (its process stopped or stopped answering); it is not retried again'
      WHERE "id" = ${runId}::uuid AND "status" = 'running' AND ${LEASE_LOST} AND "attempts" >= ${this.options.maxAttempts}`;
  }

  async findRun(id: string): Promise<ModelRunRecord> {
    const row = /^[0-9a-f-]{36}$/.test(id) ? await this.prisma.modelRun.findUnique({ where: { id } }) : null;
    if (!row) throw AppError.notFound('Model run', id, 'id');
    return toRunRecord(row);
  }

  /**
   * The newest run of each scenario of these incidents with no caller overrides, in one query.
   * Runs of another engine version are not answers to today's question (they may lack a
   * verdict, or differ), so they are left out and the scenario is run again.
   */
  async latestRuns(incidentIds: readonly string[]): Promise<Map<string, ModelRunRecord>> {
    if (incidentIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT DISTINCT ON (r."incidentId", r."scenarioKey") r."id"::text AS id
      FROM "ModelRun" r JOIN "IncidentModel" m ON m."incidentId" = r."incidentId" AND m."specId" = r."specId"
      WHERE r."incidentId" IN (${Prisma.join(incidentIds.map((id) => Prisma.sql`${id}::uuid`))})
        AND r."parameters" = '{}'::jsonb AND r."seed" = ${this.options.defaultSeed}
        AND r."engineVersion" = ${ENGINE_VERSION}
      ORDER BY r."incidentId", r."scenarioKey", (r."status" = 'succeeded') DESC, r."queuedAt" DESC`;
    if (rows.length === 0) return new Map();
    const runs = await this.prisma.modelRun.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
    return new Map(runs.map((r) => [`${r.incidentId}:${r.scenarioKey}`, toRunRecord(r)]));
  }

  /**
   * The as-happened run beside each fix scenario, with the same parameters and seed. A fix keeps
   * its own parameter values: a what-if value that contradicts one is not applied to that
   * scenario and is reported in its `conflicts` (the as-happened run, and the fix's verdict
   * baseline, do use it).
   */
  async compare(incidentSlug: string, parameters: Record<string, number> = {}, seed?: number | null, client?: string | null): Promise<ScenarioComparison[]> {
    const incident = await this.incidentBySlug(incidentSlug, { publishedOnly: true });
    const model = await this.modelOf(incident.id);
    if (!model) throw new AppError('NOT_FOUND', `Incident "${incidentSlug}" has no model attached.`, { field: 'incident' });
    const comparisons: ScenarioComparison[] = [];
    // Sequential on purpose: the worker pool is the bound on concurrency, not this loop.
    const spec = effectiveSpec(model.spec.model, model.defaultParameters);
    for (const scenario of model.scenarios) {
      const run = await this.runFor(model, scenario.key, parameters, seed ?? this.options.defaultSeed, client);
      comparisons.push({ scenario, run, conflicts: this.conflicts(spec, parameters, scenario.key) });
    }
    return comparisons;
  }

  /** What-if values a scenario keeps its own value for; empty for a scenario the model no longer has. */
  conflicts(spec: ModelSpec, overrides: Record<string, number>, scenarioKey: string): ParameterConflict[] {
    return spec.scenarios.some((s) => s.key === scenarioKey) ? parameterConflicts(spec, overrides, scenarioKey) : [];
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

/**
 * A model's checks by kind, the one the engine adds for the failure criterion included (kind
 * `reproduces` unless the criterion says otherwise). Only `reproduces` is evidence.
 */
export function checkKindCounts(spec: ModelSpec): { reproduces: number; fitted: number; construction: number; unlabelled: number } {
  const kinds = (spec.checks ?? []).map((c) => c.kind ?? 'unlabelled');
  if (spec.failure) kinds.push(spec.failure.kind ?? 'reproduces');
  const count = (k: string) => kinds.filter((x) => x === k).length;
  return { reproduces: count('reproduces'), fitted: count('fitted'), construction: count('construction'), unlabelled: count('unlabelled') };
}

/** How many of a model's checks reproduce a figure of the source it was not fitted to: its evidence. */
export function evidenceCount(spec: ModelSpec): number {
  return checkKindCounts(spec).reproduces;
}

export function specChecksum(spec: ModelSpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}

function timing(started: bigint) {
  return { finishedAt: new Date(), durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6) };
}

export function toRunRecord(row: RunRow): ModelRunRecord {
  return {
    ...row,
    parameters: row.parameters as Record<string, number>,
    summary: row.summary as unknown as ModelRunRecord['summary'],
    series: row.series as unknown as StoredSeries | null,
    checks: row.checks as unknown as ModelRunRecord['checks'],
    failure: row.failure as unknown as ModelRunRecord['failure'],
    verdict: row.verdict as unknown as ModelRunRecord['verdict'],
  };
}
