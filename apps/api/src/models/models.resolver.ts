import { Args, Context, Float, ID, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { Request } from 'express';
import { evidenceCount, ModelLoaders, ModelRunsService, type IncidentModelView, type ModelRunRecord, type ScenarioComparison, type ScenarioRecord } from '@hindsight/model-runs';
import type { ParameterProvenance as ProvenanceSpec } from '@hindsight/models';
import type { IncidentLoaders, IncidentRecord } from '@hindsight/incidents';
import { principalOf } from '../auth/request-principal';
import { principalKey } from '@hindsight/tracking';
import { ReadOperation } from '../auth/roles.decorator';
import { Loaders } from '../common/gql-context';
import { JSONScalar } from '../common/json.scalar';
import { Actionable, Incident } from '../incidents/types/incident.types';
import {
  ComparedFigure,
  FailureCriterion,
  FailureEvaluation,
  FixVerdict,
  IncidentModel,
  ModelCheck,
  ModelComparison,
  ModelParameter,
  ModelRun,
  ModelRunEvent,
  ModelScenario,
  ModelSeries,
  ModelSpecVersion,
  ModelSummaryFigure,
  ParameterProvenance,
  ParameterValue,
  ParameterValueInput,
} from './model.types';

const loadersByRequest = new WeakMap<Request, ModelLoaders>();

function toParameters(values: ParameterValueInput[] | null | undefined): Record<string, number> {
  return Object.fromEntries((values ?? []).map((p) => [p.name, p.value]));
}

/** What `Incident.model` resolves to: the view, plus the fields GraphQL reads directly. */
type ModelParent = IncidentModelView & { key: string; version: string; title: string; description: string };

@Resolver(() => Incident)
export class IncidentModelFieldResolver {
  constructor(private readonly models: ModelRunsService) {}

  @ResolveField(() => IncidentModel, { nullable: true, description: 'The executable model of this failure, when one is attached.' })
  async model(@Parent() incident: IncidentRecord, @Context('req') req: Request): Promise<ModelParent | null> {
    const view = await modelLoaders(req, this.models).model.load(incident.id);
    if (!view) return null;
    const { key, version, title, model } = view.spec;
    return { ...view, key, version, title, description: model.description };
  }
}

@Resolver(() => IncidentModel)
export class IncidentModelResolver {
  @ResolveField(() => [ModelParameter], { description: "The incident's defaults replace the spec's own." })
  parameters(@Parent() m: ModelParent): ModelParameter[] {
    return m.spec.model.parameters.map((p) => ({
      ...p,
      default: m.defaultParameters[p.name] ?? p.default,
      integer: p.integer ?? false,
      provenance: provenanceOf(p.provenance),
    }));
  }

  @ResolveField(() => FailureCriterion, { nullable: true, description: 'What makes a run an outage; fix scenarios are judged by it. Null when the model states none.' })
  failureCriterion(@Parent() m: ModelParent): FailureCriterion | null {
    const f = m.spec.model.failure;
    return f ? { description: f.description, metric: f.metric, op: f.op, sustain: f.sustain ?? 0, source: f.source } : null;
  }

  @ResolveField(() => Int, {
    description: "Checks that reproduce a figure of the source the model was not fitted to (the as-happened run meeting the failure criterion included): the model's evidence. Fitted and by-construction checks do not count.",
  })
  evidenceCount(@Parent() m: ModelParent): number {
    return evidenceCount(m.spec.model);
  }

  @ResolveField(() => [ModelScenario], { description: '"as-happened" first, then one scenario per fix the model can express.' })
  scenarios(@Parent() m: ModelParent): ScenarioRecord[] {
    return m.scenarios;
  }
}

@Resolver(() => ModelScenario)
export class ModelScenarioResolver {
  constructor(private readonly models: ModelRunsService) {}

  @ResolveField(() => Actionable, { nullable: true })
  async actionable(@Parent() s: ScenarioRecord, @Loaders() loaders: IncidentLoaders) {
    if (!s.actionableKey) return null;
    return (await loaders.actionables.load(s.incidentId)).find((a) => a.key === s.actionableKey) ?? null;
  }

  @ResolveField(() => ModelRun, { nullable: true, description: 'The newest run with default parameters and seed.' })
  latestRun(@Parent() s: ScenarioRecord, @Context('req') req: Request) {
    return modelLoaders(req, this.models).latestRun.load(`${s.incidentId}:${s.key}`);
  }
}

@Resolver(() => ModelRun)
export class ModelRunResolver {
  @ResolveField(() => [ParameterValue], { description: 'The values the caller set; everything else is the default.' })
  parameters(@Parent() run: ModelRunRecord): ParameterValue[] {
    return Object.entries(run.parameters).map(([name, value]) => ({ name, value }));
  }

  @ResolveField(() => [ModelSummaryFigure]) summary(@Parent() run: ModelRunRecord) {
    return run.summary ?? [];
  }

  @ResolveField(() => [ModelCheck]) checks(@Parent() run: ModelRunRecord) {
    return run.checks ?? [];
  }

  @ResolveField(() => Boolean, { nullable: true, description: 'Whether every check passed; null until the run succeeded.' })
  checksPassed(@Parent() run: ModelRunRecord): boolean | null {
    return run.checks ? run.checks.every((c) => c.pass) : null;
  }

  @ResolveField(() => [Float], { description: 'Simulated seconds of each output point.' }) time(@Parent() run: ModelRunRecord) {
    return run.series?.time ?? [];
  }

  @ResolveField(() => [ModelSeries]) series(@Parent() run: ModelRunRecord) {
    return run.series?.series ?? [];
  }

  @ResolveField(() => [ModelRunEvent]) events(@Parent() run: ModelRunRecord) {
    return run.series?.events ?? [];
  }

  @ResolveField(() => FailureEvaluation, { nullable: true, description: "The run against the model's failure criterion; null until it succeeded, or when the model states none." })
  failure(@Parent() run: ModelRunRecord) {
    return run.failure;
  }

  @ResolveField(() => FixVerdict, { nullable: true, description: 'For a scenario other than as-happened: would its change have prevented the failure?' })
  verdict(@Parent() run: ModelRunRecord): FixVerdict | null {
    return run.verdict ? { ...run.verdict, delaySeconds: run.verdict.delay } : null;
  }
}

@Resolver()
export class ModelsResolver {
  constructor(private readonly models: ModelRunsService) {}

  @Query(() => ModelRun, { description: 'One run by id.' })
  modelRun(@Args('id', { type: () => ID }) id: string) {
    return this.models.findRun(id);
  }

  @ReadOperation()
  @Mutation(() => ModelRun, {
    description: 'Runs a scenario of an incident\'s model with other parameters (a what-if). The same inputs return the stored run.',
  })
  async runModel(
    @Args('incident') incident: string,
    @Args('scenario', { defaultValue: 'as-happened' }) scenario: string,
    @Args('parameters', { type: () => [ParameterValueInput], nullable: true }) parameters: ParameterValueInput[] | null,
    @Args('seed', { type: () => Int, nullable: true }) seed: number | null,
    @Context('req') req: Request,
  ) {
    return this.models.run({ incidentSlug: incident, scenarioKey: scenario, parameters: toParameters(parameters), seed }, await clientOf(req));
  }

  @Query(() => ModelComparison, { description: 'As-happened beside every fix scenario, with the same parameters and seed.' })
  async compareScenarios(
    @Args('incident') incident: string,
    @Args('parameters', { type: () => [ParameterValueInput], nullable: true }) parameters: ParameterValueInput[] | null,
    @Args('seed', { type: () => Int, nullable: true }) seed: number | null,
    @Context('req') req: Request,
  ): Promise<{ scenarios: ScenarioComparison[]; figures: ComparedFigure[] }> {
    const scenarios = await this.models.compare(incident, toParameters(parameters), seed, await clientOf(req));
    return { scenarios, figures: compareFigures(scenarios) };
  }

  @Mutation(() => ModelSpecVersion, { description: 'Stores a model spec (editor). The same content again returns the stored version.' })
  createModelSpec(@Args('spec', { type: () => JSONScalar }) spec: unknown) {
    return this.models.createSpec(spec);
  }

  @Mutation(() => IncidentModel, { description: 'Attaches a stored model to an incident (editor); the latest version when none is named.' })
  async attachModel(
    @Args('incident') incident: string,
    @Args('model') model: string,
    @Args('version', { type: () => String, nullable: true }) version: string | null,
    @Args('defaultParameters', { type: () => [ParameterValueInput], nullable: true }) defaults: ParameterValueInput[] | null,
  ): Promise<ModelParent> {
    const view = await this.models.attach(incident, model, version, toParameters(defaults));
    const { key, version: v, title, model: spec } = view.spec;
    return { ...view, key, version: v, title, description: spec.description };
  }
}

/** Who asks, for the per-client quota of stored runs: the token when there is one, else the address. */
export async function clientOf(req: Request): Promise<string> {
  const principal = await principalOf(req);
  return principal ? principalKey(principal) : `address:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
}

function modelLoaders(req: Request, models: ModelRunsService): ModelLoaders {
  let loaders = loadersByRequest.get(req);
  if (!loaders) {
    loaders = new ModelLoaders(models);
    loadersByRequest.set(req, loaders);
  }
  return loaders;
}

function compareFigures(rows: { scenario: ScenarioRecord; run: ModelRunRecord }[]): ComparedFigure[] {
  const figures = new Map<string, ComparedFigure>();
  for (const { scenario, run } of rows) {
    for (const f of run.summary ?? []) {
      let figure = figures.get(f.name);
      if (!figure) {
        figure = { name: f.name, label: f.label, unit: f.unit, values: [] };
        figures.set(f.name, figure);
      }
      figure.values.push({ scenarioKey: scenario.key, value: f.value });
    }
  }
  return [...figures.values()];
}

export function provenanceOf(p: ProvenanceSpec | undefined): ParameterProvenance | null {
  if (!p) return null;
  const none = { quote: null, place: null, formula: null, from: [], why: null };
  switch (p.kind) {
    case 'source':
      return { ...none, kind: p.kind, quote: p.quote, place: p.place };
    case 'derived':
      return { ...none, kind: p.kind, formula: p.formula, from: p.from ?? [] };
    case 'assumption':
      return { ...none, kind: p.kind, why: p.why };
  }
}
