import { Args, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { AppError } from '@hindsight/domain';
import type { IncidentLoaders } from '@hindsight/incidents';
import { TEMPLATES, type ModelSuggestion as Suggestion, type ModelTemplate } from '@hindsight/model-templates';
import { RequireRole } from '../auth/roles.decorator';
import { Loaders, type GqlContext } from '../common/gql-context';
import {
  AttachSuggestedModelInput,
  AttachSuggestedModelPayload,
  ModelSuggestion,
  ModelTemplateInfo,
  SuggestedActionableMatch,
  ModelSuggestions,
  UnmatchedActionable,
} from './model-suggestion.types';
import { ParameterValueInput } from './model.types';
import { Actionable } from '../incidents/types/incident.types';
import { ModelSuggestionsService } from './model-suggestions.service';
import { provenanceOf } from './models.resolver';

export function templateInfo(t: ModelTemplate): ModelTemplateInfo {
  return { key: t.key, title: t.title, failureClass: t.failureClass, docs: t.docs, remedies: [...new Set(t.fixes.map((f) => f.remedy))] };
}

/** The GraphQL shape of one draft. */
export function suggestionView(incidentId: string, s: Suggestion | (Omit<Suggestion, 'score' | 'reasons'> & { score?: number; reasons?: Suggestion['reasons'] })): ModelSuggestion {
  const spec = s.spec;
  return {
    template: templateInfo(s.template),
    score: s.score ?? 0,
    reasons: s.reasons ?? [],
    parameters: s.parameters.map((p) => ({ ...p, provenance: provenanceOf(p.provenance)! })),
    matches: s.matches.map((m) => ({ ...m, incidentId, scenarioKey: spec.scenarios.find((x) => x.actionableKey === m.actionableKey)?.key ?? m.fixKey })),
    unmatched: s.unmatched.map((u) => ({ ...u, incidentId })),
    checks: (spec.checks ?? []).map((c) => ({ name: c.name, description: c.description, kind: c.kind ?? null })),
    failureCriterion: spec.failure?.description ?? '',
    spec,
  };
}

@Resolver()
export class ModelSuggestionsResolver {
  constructor(private readonly suggestions: ModelSuggestionsService) {}

  @Query(() => [ModelTemplateInfo], { description: 'The failure-pattern templates a model can be made from.' })
  modelTemplates(): ModelTemplateInfo[] {
    return TEMPLATES.map(templateInfo);
  }

  @RequireRole('editor')
  @Query(() => ModelSuggestions, {
    description:
      'Draft models for an incident (editor): templates ranked by its patterns, factors, components and text, each with its parameters read from the text (with provenance) or assumed (with why), its actionables matched to fix scenarios, and its checks. Nothing is stored.',
  })
  async suggestModels(
    @Args('incident', { description: "The incident's slug." }) incidentSlug: string,
    @Args('template', { type: () => String, nullable: true, description: 'Only this template (with `parameters` applied); all ranked templates when omitted.' }) template: string | null,
    @Args('parameters', { type: () => [ParameterValueInput], nullable: true, description: 'Values a person set, replacing what was read or assumed.' }) parameters: ParameterValueInput[] | null,
    @Loaders() loaders: IncidentLoaders,
  ): Promise<ModelSuggestions> {
    const incident = await this.suggestions.findIncident(incidentSlug);
    const text = await this.suggestions.incidentText(incident, loaders);
    if (template) {
      const t = this.suggestions.template(template, 'template');
      const overrides = this.suggestions.overrides(t, parameters ?? [], (i, part) => `parameters[${i}].${part}`);
      return { incident, suggestions: [suggestionView(incident.id, this.suggestions.draft(t, text, overrides))] };
    }
    if (parameters?.length) throw AppError.badField('parameters', 'parameters need a template: name the template they belong to');
    return { incident, suggestions: this.suggestions.suggest(text).map((s) => suggestionView(incident.id, s)) };
  }

  @Mutation(() => AttachSuggestedModelPayload, {
    description:
      "Stores a draft model as a new spec version and attaches it to the incident (editor): the person's confirmation of a suggestion. Runs then name the version that produced them.",
  })
  async attachSuggestedModel(@Args('input') input: AttachSuggestedModelInput, @Loaders() loaders: IncidentLoaders): Promise<AttachSuggestedModelPayload> {
    const t = this.suggestions.template(input.template, 'input.template');
    const overrides = this.suggestions.overrides(t, input.parameters ?? [], (i, part) => `input.parameters[${i}].${part}`);
    const incident = await this.suggestions.findIncident(input.incident);
    const draft = this.suggestions.draft(t, await this.suggestions.incidentText(incident, loaders), overrides);
    const { specVersion, view } = await this.suggestions.confirm(incident, draft.spec, input.expectedModel, 'input.expectedModel');
    const { key, version, title, model } = view.spec;
    return { specVersion, model: { ...view, key, version, title, description: model.description }, incident: await loaders.incident.load(view.incidentId) };
  }
}

/** The actionable a draft speaks of: the Actionable node itself, so caches hold one copy of it. */
async function actionableOf(parent: { incidentId: string; actionableKey: string }, loaders: IncidentLoaders) {
  const found = (await loaders.actionables.load(parent.incidentId)).find((a) => a.key === parent.actionableKey);
  if (!found) throw AppError.notFound('Actionable', parent.actionableKey, 'actionableKey');
  return found;
}

@Resolver(() => SuggestedActionableMatch)
export class SuggestedActionableMatchResolver {
  @ResolveField(() => Actionable) actionable(m: SuggestedActionableMatch, _args: unknown, { loaders }: GqlContext) {
    return actionableOf(m, loaders.incidents);
  }
}

@Resolver(() => UnmatchedActionable)
export class UnmatchedActionableResolver {
  @ResolveField(() => Actionable) actionable(u: UnmatchedActionable, _args: unknown, { loaders }: GqlContext) {
    return actionableOf(u, loaders.incidents);
  }
}
