import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import {
  boundaryTarget,
  findBoundary,
  resolveParameters,
  ModelRunError,
  runEnsemble,
  runSweep,
  type EnsembleRun,
  type BoundaryFigure,
  type ModelBoundaryResult,
  type ModelEnsembleResult,
  type ModelErrorCode,
  type ModelSweepResult,
  type RunModelInput,
  type RunOne,
  type SweepAxis,
  SpecLimits,
} from '@hindsight/models';
import { effectiveSpec, ModelRunsService, type IncidentModelView } from './model-runs.service';
import type { ModelRunRecord } from './model-runs.types';

/** How long one request waits for queued runs before answering PENDING (ask again: finished runs are stored). */
export const EXPLORATION_WAIT_MS = 25_000;
const POLL_MS = 200;
/** With a queue, runs of one exploration submitted at once (the pending bound refuses beyond it). */
const QUEUE_LANES = 64;

export interface ExplorationRequest {
  incidentSlug: string;
  scenarioKey: string;
  parameters?: Record<string, number>;
  seed?: number | null;
}

/** An exploration is COMPLETE, or PENDING while queue workers still run some of its runs. */
export interface Exploration<T> {
  status: 'COMPLETE' | 'PENDING';
  /** Runs stored and finished so far (of those this request asked for). */
  runsFinished: number;
  result: T | null;
}

class RunsPending extends Error {}

/**
 * Seed ensembles, parameter sweeps and boundary searches over an incident's model. Every run
 * of one is an ordinary stored run (`ModelRunsService.runFor`): cached by its input hash,
 * executed inline or, with MODEL_EXECUTION=queue, as a job any `npm run worker` process may
 * claim under the usual lease. The summary is computed from the stored runs each time it is
 * asked for, so asking again after PENDING costs only the runs still missing.
 */
@Injectable()
export class ModelExplorations {
  /** How long one request waits for runs still queued or running before it answers PENDING. */
  waitMs = EXPLORATION_WAIT_MS;

  constructor(
    private readonly runs: ModelRunsService,
    private readonly prisma: PrismaService,
  ) {}

  async ensemble(request: ExplorationRequest & { seeds: number }, client?: string | null): Promise<Exploration<ModelEnsembleResult>> {
    if (!Number.isInteger(request.seeds) || request.seeds < 1 || request.seeds > SpecLimits.ensembleSeeds) {
      throw AppError.badField('input.seeds', `expected a whole number of runs between 1 and ${SpecLimits.ensembleSeeds} (engine limit), got ${request.seeds}`);
    }
    return this.explore(request, client, (input, runOne, lanes) => runEnsemble(input, { seeds: request.seeds, concurrency: lanes }, runOne));
  }

  async sweep(request: ExplorationRequest & { axes: SweepAxis[] }, client?: string | null): Promise<Exploration<ModelSweepResult>> {
    if (request.axes.length < 1 || request.axes.length > 2) throw AppError.badField('input.axes', `expected one or two parameters to sweep, got ${request.axes.length}`);
    return this.explore(request, client, (input, runOne, lanes) => runSweep(input, { axes: request.axes, concurrency: lanes }, runOne));
  }

  async boundary(
    request: ExplorationRequest & { parameter: string; from: number; to: number; tolerance?: number | null; check?: string | null; figure?: BoundaryFigure | null },
    client?: string | null,
  ): Promise<Exploration<ModelBoundaryResult>> {
    if (request.check != null || request.figure != null) {
      // The engine's check of the target, before the scenario's: its `boundary.check` and
      // `boundary.figure…` paths are this input's `check` and `figure…` fields.
      const model = await this.modelOf(request.incidentSlug);
      const { issue } = boundaryTarget(model.spec.model, request.scenarioKey, request);
      if (issue) throw AppError.badField(issue.path.replace(/^boundary\./, 'input.'), issue.reason);
    }
    return this.explore(request, client, (input, runOne) =>
      findBoundary(
        input,
        { parameter: request.parameter, from: request.from, to: request.to, tolerance: request.tolerance ?? undefined, check: request.check ?? undefined, figure: request.figure ?? undefined },
        runOne,
      ),
    );
  }

  private async explore<T>(request: ExplorationRequest, client: string | null | undefined, body: (input: RunModelInput, runOne: RunOne, lanes: number) => Promise<T>): Promise<Exploration<T>> {
    const model = await this.modelOf(request.incidentSlug);
    const spec = effectiveSpec(model.spec.model, model.defaultParameters);
    const seed = request.seed ?? this.runs.defaultSeed;
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) throw AppError.badField('input.seed', `expected an integer from 0 to ${2 ** 31 - 1}; got ${seed}`);
    // The shared values first (ModelParameterError names the parameter and its range), then the scenario.
    resolveParameters(spec, request.parameters ?? {});
    if (!spec.scenarios.some((s) => s.key === request.scenarioKey)) {
      throw AppError.badField('input.scenario', `unknown scenario "${request.scenarioKey}"; this model has ${spec.scenarios.map((s) => s.key).join(', ')}`);
    }
    const deadline = Date.now() + this.waitMs;
    let finished = 0;
    const inFlight = new Set<Promise<EnsembleRun>>();
    const runOne: RunOne = async (input) => {
      const run = this.finishedRun(model, input, client, deadline);
      inFlight.add(run);
      try {
        const r = await run;
        finished++;
        return r;
      } finally {
        inFlight.delete(run);
      }
    };
    // Inline, two runs at a time keep the pool's other places for other callers; with a queue,
    // the runs are only enqueued here and the workers bound the concurrency.
    const lanes = this.runs.execution === 'queue' ? QUEUE_LANES : 2;
    try {
      const result = await body({ spec, scenarioKey: request.scenarioKey, parameters: request.parameters ?? {}, seed }, runOne, lanes);
      return { status: 'COMPLETE', runsFinished: finished, result };
    } catch (e) {
      if (e instanceof RunsPending) {
        // Every run this request started is stored (and queued) before it answers.
        await Promise.allSettled([...inFlight]);
        return { status: 'PENDING', runsFinished: finished, result: null };
      }
      throw e;
    }
  }

  private async modelOf(slug: string): Promise<IncidentModelView> {
    const incident = await this.prisma.incident.findFirst({ where: { slug, status: 'published' }, select: { id: true } });
    if (!incident) throw AppError.notFound('Incident', slug, 'incident');
    const model = await this.runs.modelOf(incident.id);
    if (!model) throw new AppError('NOT_FOUND', `Incident "${slug}" has no model attached.`, { field: 'incident' });
    return model;
  }

  /** The stored run for these inputs once it has finished; a failed run is its error. */
  private async finishedRun(model: IncidentModelView, input: RunModelInput, client: string | null | undefined, deadline: number): Promise<EnsembleRun> {
    let record = await this.runs.runFor(model, input.scenarioKey!, input.parameters ?? {}, input.seed ?? this.runs.defaultSeed, client);
    while (record.status === 'queued' || record.status === 'running') {
      if (Date.now() >= deadline) throw new RunsPending();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      record = await this.runs.findRun(record.id);
    }
    if (record.status === 'failed') {
      throw new ModelRunError((record.errorCode ?? 'WORKER_FAILED') as ModelErrorCode, `the run with seed ${record.seed} failed: ${record.error ?? 'no reason stored'}`);
    }
    return storedRun(model, record);
  }
}

/** What an exploration reads of a stored run. */
function storedRun(model: IncidentModelView, r: ModelRunRecord): EnsembleRun {
  const spec = model.spec.model;
  const scenario = model.scenarios.find((s) => s.key === r.scenarioKey);
  return {
    seed: r.seed,
    inputHash: r.inputHash,
    model: { slug: spec.slug, version: spec.version, title: spec.title },
    scenario: { key: r.scenarioKey, title: scenario?.title ?? r.scenarioKey, description: scenario?.description ?? '', actionableKey: scenario?.actionableKey ?? null },
    mode: spec.scenarios.find((s) => s.key === r.scenarioKey)?.engine?.mode ?? spec.engine.mode,
    fluidStep: spec.engine.fluidStep ?? 0.1,
    horizon: r.series?.horizon ?? 0,
    timeOrigin: r.series?.timeOrigin ?? null,
    parameters: r.parameters,
    time: r.series?.time ?? [],
    series: r.series?.series ?? [],
    summary: r.summary ?? [],
    failure: r.failure,
    verdict: r.verdict,
    checks: r.checks ?? [],
  };
}

