import { Args, Context, Mutation, Resolver } from '@nestjs/graphql';
import type { Request } from 'express';
import { ModelExplorations, type Exploration } from '@hindsight/model-runs';
import type { ModelBoundaryResult, ModelEnsembleResult, ModelSweepResult } from '@hindsight/models';
import { ReadOperation } from '../auth/roles.decorator';
import { clientOf } from './models.resolver';
import {
  BoundaryFigureOpEnum,
  BoundaryTargetEnum,
  FindModelBoundaryInput,
  FindModelBoundaryPayload,
  RunModelEnsembleInput,
  RunModelEnsemblePayload,
  RunModelSweepInput,
  RunModelSweepPayload,
  type ModelBoundary,
  type ModelEnsemble,
  type ModelSweep,
} from './model-exploration.types';

function toParameters(values: { name: string; value: number }[] | null | undefined): Record<string, number> {
  return Object.fromEntries((values ?? []).map((p) => [p.name, p.value]));
}

function base(input: RunModelEnsembleInput | RunModelSweepInput | FindModelBoundaryInput) {
  return { incidentSlug: input.incident, scenarioKey: input.scenario, parameters: toParameters(input.parameters), seed: input.seed ?? null };
}

function ensembleOf(e: ModelEnsembleResult): ModelEnsemble {
  return { ...e, scenario: e.scenario.key };
}

function sweepOf(s: ModelSweepResult): ModelSweep {
  return {
    scenario: s.scenario.key,
    seed: s.seed,
    axes: s.axes,
    failureCriterion: s.failureCriterion,
    text: s.text,
    points: s.points.map((p) => ({
      values: Object.entries(p.values).map(([parameter, value]) => ({ parameter, value })),
      failureMet: p.failureMet,
      onset: p.onset,
      duration: p.duration,
      verdict: p.verdict,
      figures: Object.entries(p.figures).map(([name, value]) => ({ name, value })),
      errorCode: p.error?.code ?? null,
    })),
  };
}

function boundaryOf(b: ModelBoundaryResult): ModelBoundary {
  return {
    ...b,
    scenario: b.scenario.key,
    target: b.target.kind === 'check' ? BoundaryTargetEnum.CHECK : b.target.kind === 'figure' ? BoundaryTargetEnum.FIGURE : BoundaryTargetEnum.FAILURE,
    checkName: b.target.check?.name ?? null,
    figure: b.target.figure === null ? null : { ...b.target.figure, op: b.target.figure.op === 'above' ? BoundaryFigureOpEnum.ABOVE : BoundaryFigureOpEnum.BELOW },
    below: b.boundary?.below ?? null,
    above: b.boundary?.above ?? null,
  };
}

function payload<T, R>(x: Exploration<T>, map: (t: T) => R): { status: string; runsFinished: number; value: R | null } {
  return { status: x.status, runsFinished: x.runsFinished, value: x.result === null ? null : map(x.result) };
}

/**
 * Questions asked of a model with many runs. Each run is a stored, cached run like `runModel`'s;
 * with a queue the runs spread over the workers and an answer that is not complete within the
 * request's wait is PENDING (ask again).
 */
@Resolver()
export class ModelExplorationResolver {
  constructor(private readonly explorations: ModelExplorations) {}

  @ReadOperation()
  @Mutation(() => RunModelEnsemblePayload, { description: 'Runs a scenario with consecutive seeds: bands of every series, the failure probability, the ensemble checks.' })
  async runModelEnsemble(@Args('input') input: RunModelEnsembleInput, @Context('req') req: Request): Promise<RunModelEnsemblePayload> {
    const p = payload(await this.explorations.ensemble({ ...base(input), seeds: input.seeds }, await clientOf(req)), ensembleOf);
    return { status: p.status, runsFinished: p.runsFinished, ensemble: p.value };
  }

  @ReadOperation()
  @Mutation(() => RunModelSweepPayload, { description: 'Runs a scenario over a grid of one or two parameters.' })
  async runModelSweep(@Args('input') input: RunModelSweepInput, @Context('req') req: Request): Promise<RunModelSweepPayload> {
    const p = payload(await this.explorations.sweep({ ...base(input), axes: input.axes }, await clientOf(req)), sweepOf);
    return { status: p.status, runsFinished: p.runsFinished, sweep: p.value };
  }

  @ReadOperation()
  @Mutation(() => FindModelBoundaryPayload, { description: 'Bisection on the failure criterion, on a named check, or on a figure crossing a value: where between two values of a parameter it flips, in words.' })
  async findModelBoundary(@Args('input') input: FindModelBoundaryInput, @Context('req') req: Request): Promise<FindModelBoundaryPayload> {
    const p = payload(await this.explorations.boundary({ ...base(input), parameter: input.parameter, from: input.from, to: input.to, tolerance: input.tolerance, check: input.check, figure: input.figure }, await clientOf(req)), boundaryOf);
    return { status: p.status, runsFinished: p.runsFinished, boundary: p.value };
  }
}
