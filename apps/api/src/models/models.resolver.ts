import { Args, Context, Float, ID, Int, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { Request } from 'express';
import DataLoader from 'dataloader';
import { PrismaService } from '@hindsight/db';
import { ActionableScenarioLoaders, evidenceCount, ModelLoaders, ModelRunsService, ModelScenarioLink, type IncidentModelView, type ModelRunRecord, type ScenarioComparison, type ScenarioRecord } from '@hindsight/model-runs';
import type { ModelSpec, ParameterProvenance as ProvenanceSpec } from '@hindsight/models';
import type { ActionableRecord, IncidentLoaders, IncidentRecord } from '@hindsight/incidents';
import { principalOf } from '../auth/request-principal';
import { principalKey } from '@hindsight/tracking';
import { ReadOperation } from '../auth/roles.decorator';
import { Loaders, type GqlContext } from '../common/gql-context';
import type { RequestLoaders } from '../common/request-loaders';
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
  ParameterConflict,
  ParameterProvenance,
  ParameterValue,
  ParameterValueInput,
} from './model.types';
import { AttachModelInput, AttachModelPayload, CreateModelSpecInput, CreateModelSpecPayload, RunModelInput, RunModelPayload } from './model-mutation.types';
import { localIdOf } from '../node/global-id';

function toParameters(values: ParameterValueInput[] | null | undefined): Record<string, number> {
  return Object.fromEntries((values ?? []).map((p) => [p.name, p.value]));
}

/** What `Incident.model` resolves to: the view, plus the fields GraphQL reads directly. */
type ModelParent = IncidentModelView & { key: string; version: string; title: string; description: string };

@Resolver(() => Incident)
export class IncidentModelFieldResolver {
  constructor(private readonly models: ModelRunsService) {}

  @ResolveField(() => IncidentModel, { nullable: true, description: 'The executable model of this failure, when one is attached.' })
  async model(incident: IncidentRecord, _args: unknown, { loaders }: GqlContext): Promise<ModelParent | null> {
    const view = await modelLoaders(loaders, this.models).model.load(incident.id);
    if (!view) return null;
    const { key, version, title, model } = view.spec;
    return { ...view, key, version, title, description: model.description };
  }
}

@Resolver(() => IncidentModel)
export class IncidentModelResolver {
  @ResolveField(() => [ModelParameter], { description: "The incident's defaults replace the spec's own." })
  parameters(m: ModelParent): ModelParameter[] {
    return m.spec.model.parameters.map((p) => ({
      ...p,
      default: m.defaultParameters[p.name] ?? p.default,
      integer: p.integer ?? false,
      provenance: provenanceOf(p.provenance),
    }));
  }

  @ResolveField(() => FailureCriterion, { nullable: true, description: 'What makes a run an outage; fix scenarios are judged by it. Null when the model states none.' })
  failureCriterion(m: ModelParent): FailureCriterion | null {
    const f = m.spec.model.failure;
    return f ? { description: f.description, metric: f.metric, op: f.op, sustain: f.sustain ?? 0, source: f.source } : null;
  }

  @ResolveField(() => Int, {
    description: "Checks that reproduce a figure of the source the model was not fitted to (the as-happened run meeting the failure criterion included): the model's evidence. Fitted and by-construction checks do not count.",
  })
  evidenceCount(m: ModelParent): number {
    return evidenceCount(m.spec.model);
  }

  @ResolveField(() => [ModelScenario], { description: '"as-happened" first, then one scenario per fix the model can express.' })
  scenarios(m: ModelParent): ScenarioRecord[] {
    return m.scenarios;
  }
}

@Resolver(() => ModelScenario)
export class ModelScenarioResolver {
  constructor(private readonly models: ModelRunsService) {}

  @ResolveField(() => Actionable, { nullable: true })
  async actionable(s: ScenarioRecord, _args: unknown, { loaders }: GqlContext) {
    if (!s.actionableKey) return null;
    return (await loaders.incidents.actionables.load(s.incidentId)).find((a) => a.key === s.actionableKey) ?? null;
  }

  @ResolveField(() => ModelRun, { nullable: true, description: 'The newest run with default parameters and seed.' })
  latestRun(s: ScenarioRecord, _args: unknown, { loaders }: GqlContext) {
    return modelLoaders(loaders, this.models).latestRun.load(`${s.incidentId}:${s.key}`);
  }
}

@Resolver(() => Actionable)
export class ActionableScenarioResolver {
  constructor(private readonly link: ModelScenarioLink) {}

  @ResolveField(() => ModelScenario, {
    nullable: true,
    description: "The scenario of the incident's model that switches this work's fix on, when there is one; its `latestRun.verdict` says whether the fix would have prevented the failure.",
  })
  scenario(a: ActionableRecord, _args: unknown, { loaders }: GqlContext): Promise<ScenarioRecord | null> {
    return loaders.of(ActionableScenarioLoaders, () => new ActionableScenarioLoaders(this.link)).scenario.load(a.id);
  }
}

/** The spec versions runs were made with, one statement per request for however many runs. */
export class ModelSpecLoaders {
  constructor(private readonly prisma: PrismaService) {}

  readonly spec = new DataLoader<string, ModelSpecVersion>(async (ids) => {
    const rows = await this.prisma.modelSpec.findMany({ where: { id: { in: [...ids] } }, select: { id: true, key: true, version: true, title: true, checksum: true, createdAt: true } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? new Error(`model spec ${id} is missing`));
  });

  /** The spec documents themselves (what a run's scenario sets), for the runs' `conflicts`. */
  readonly document = new DataLoader<string, ModelSpec>(async (ids) => {
    const rows = await this.prisma.modelSpec.findMany({ where: { id: { in: [...ids] } }, select: { id: true, spec: true } });
    const byId = new Map(rows.map((r) => [r.id, r.spec as unknown as ModelSpec]));
    return ids.map((id) => byId.get(id) ?? new Error(`model spec ${id} is missing`));
  });
}

@Resolver(() => ModelRun)
export class ModelRunResolver {
  constructor(
    private readonly prisma: PrismaService,
    private readonly models: ModelRunsService,
  ) {}

  @ResolveField(() => ModelSpecVersion, { description: 'The version of the model spec the run was made with.' })
  spec(run: ModelRunRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.of(ModelSpecLoaders, () => new ModelSpecLoaders(this.prisma)).spec.load(run.specId);
  }

  @ResolveField(() => [ParameterValue], {
    description:
      "The what-if values the run was asked for. The run used the model's defaults, these values over them, and the scenario's own parameters over both: a fix keeps its own value for a parameter it sets, and `conflicts` lists the values asked for here that it did not apply.",
  })
  parameters(run: ModelRunRecord): ParameterValue[] {
    return Object.entries(run.parameters).map(([name, value]) => ({ name, value }));
  }

  @ResolveField(() => [ParameterConflict], { description: "What-if values this run's scenario kept its own value for instead of applying (empty when it applied every value)." })
  async conflicts(run: ModelRunRecord, _args: unknown, { loaders }: GqlContext): Promise<ParameterConflict[]> {
    if (Object.keys(run.parameters).length === 0) return [];
    const spec = await loaders.of(ModelSpecLoaders, () => new ModelSpecLoaders(this.prisma)).document.load(run.specId);
    return this.models.conflicts(spec, run.parameters, run.scenarioKey);
  }

  @ResolveField(() => [ModelSummaryFigure]) summary(run: ModelRunRecord) {
    return run.summary ?? [];
  }

  @ResolveField(() => [ModelCheck]) checks(run: ModelRunRecord) {
    return run.checks ?? [];
  }

  @ResolveField(() => Boolean, { nullable: true, description: 'Whether every check passed; null until the run succeeded.' })
  checksPassed(run: ModelRunRecord): boolean | null {
    return run.checks ? run.checks.every((c) => c.pass) : null;
  }

  @ResolveField(() => [Float], { description: 'Simulated seconds of each output point.' }) time(run: ModelRunRecord) {
    return run.series?.time ?? [];
  }

  @ResolveField(() => [ModelSeries]) series(run: ModelRunRecord) {
    return run.series?.series ?? [];
  }

  @ResolveField(() => [ModelRunEvent]) events(run: ModelRunRecord) {
    return run.series?.events ?? [];
  }

  @ResolveField(() => FailureEvaluation, { nullable: true, description: "The run against the model's failure criterion; null until it succeeded, or when the model states none." })
  failure(run: ModelRunRecord) {
    return run.failure;
  }

  @ResolveField(() => FixVerdict, { nullable: true, description: 'For a scenario other than as-happened: would its change have prevented the failure?' })
  verdict(run: ModelRunRecord): FixVerdict | null {
    return run.verdict ? { ...run.verdict, delaySeconds: run.verdict.delay } : null;
  }
}

@Resolver()
export class ModelsResolver {
  constructor(private readonly models: ModelRunsService) {}

  @Query(() => ModelRun, { description: 'One run by id.' })
  modelRun(@Args('id', { type: () => ID }) id: string) {
    return this.models.findRun(localIdOf(id, 'ModelRun', 'id'));
  }

  @ReadOperation()
  @Mutation(() => RunModelPayload, {
    description: 'Runs a scenario of an incident\'s model with other parameters (a what-if). The same inputs return the stored run.',
  })
  async runModel(@Args('input') input: RunModelInput, @Context('req') req: Request) {
    const run = await this.models.run(
      { incidentSlug: input.incident, scenarioKey: input.scenario, parameters: toParameters(input.parameters), seed: input.seed ?? null },
      await clientOf(req),
    );
    return { run };
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

  @Mutation(() => CreateModelSpecPayload, { description: 'Stores a model spec (editor). The same content again returns the stored version.' })
  async createModelSpec(@Args('input') input: CreateModelSpecInput) {
    return { modelSpec: await this.models.createSpec(input.spec) };
  }

  @Mutation(() => AttachModelPayload, { description: 'Attaches a stored model to an incident (editor); the latest version when none is named.' })
  async attachModel(@Args('input') input: AttachModelInput, @Loaders() loaders: IncidentLoaders): Promise<{ model: ModelParent; incident: unknown }> {
    const view = await this.models.attach(input.incident, input.model, input.version ?? null, toParameters(input.defaultParameters));
    const { key, version: v, title, model: spec } = view.spec;
    return { model: { ...view, key, version: v, title, description: spec.description }, incident: await loaders.incident.load(view.incidentId) };
  }
}

/** Who asks, for the per-client quota of stored runs: the token when there is one, else the address. */
export async function clientOf(req: Request): Promise<string> {
  const principal = await principalOf(req);
  return principal ? principalKey(principal) : `address:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
}

function modelLoaders(loaders: RequestLoaders, models: ModelRunsService): ModelLoaders {
  return loaders.of(ModelLoaders, () => new ModelLoaders(models));
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
