import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { AppError } from '@hindsight/domain';
import { IncidentLoaders, IncidentsService, type IncidentRecord } from '@hindsight/incidents';
import { ModelRunsService, specChecksum } from '@hindsight/model-runs';
import { TEMPLATES, draftModel, findTemplate, suggestModels, type IncidentText, type ModelSuggestion as Suggestion, type ModelTemplate } from '@hindsight/model-templates';
import { PrismaService } from '@hindsight/db';
import type { ModelSpec } from '@hindsight/models';
import { RequireRole } from '../auth/roles.decorator';
import { Loaders } from '../common/gql-context';
import {
  AttachSuggestedModelInput,
  AttachSuggestedModelPayload,
  ModelSuggestion,
  ModelTemplateInfo,
  SuggestModelsInput,
  SuggestModelsPayload,
} from './model-suggestion.types';
import { provenanceOf } from './models.resolver';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An incident as the template suggester reads it: its text, timeline, factors and actionables. */
export async function incidentText(incident: IncidentRecord, loaders: IncidentLoaders): Promise<IncidentText> {
  const [timeline, factors, actionables, patterns] = await Promise.all([
    loaders.timeline.load(incident.id),
    loaders.factors.load(incident.id),
    loaders.actionables.load(incident.id),
    loaders.patterns.load(incident.id),
  ]);
  const time = (at: Date | null, precision: IncidentRecord['startedPrecision']) => (at ? { at: iso(at), precision } : null);
  return {
    slug: incident.slug,
    title: incident.title,
    summary: incident.summary,
    narrative: incident.narrative,
    impact: incident.impact,
    components: incident.components,
    patterns: patterns.map((p) => p.key),
    keyTimes: {
      started: time(incident.startedAt, incident.startedPrecision),
      detected: time(incident.detectedAt, incident.detectedPrecision),
      mitigated: time(incident.mitigatedAt, incident.mitigatedPrecision),
      resolved: time(incident.resolvedAt, incident.resolvedPrecision),
    },
    timeline: timeline.map((e) => ({ key: e.key, asWritten: e.asWritten, at: iso(e.at), precision: e.precision, kind: e.kind, text: e.text })),
    causalFactors: factors.map((f) => ({ key: f.key, role: f.role, component: f.component, text: f.text })),
    actionables: actionables.map((a) => ({ key: a.key, title: a.title, description: a.description, status: a.status })),
  };
}

export function templateInfo(t: ModelTemplate): ModelTemplateInfo {
  return { key: t.key, title: t.title, failureClass: t.failureClass, docs: t.docs, remedies: [...new Set(t.fixes.map((f) => f.remedy))] };
}

/** The GraphQL shape of one draft. */
export function suggestionView(s: Suggestion | (Omit<Suggestion, 'score' | 'reasons'> & { score?: number; reasons?: Suggestion['reasons'] })): ModelSuggestion {
  const spec = s.spec;
  return {
    template: templateInfo(s.template),
    score: s.score ?? 0,
    reasons: s.reasons ?? [],
    parameters: s.parameters.map((p) => ({ ...p, provenance: provenanceOf(p.provenance)! })),
    matches: s.matches.map((m) => ({ ...m, scenarioKey: spec.scenarios.find((x) => x.actionableKey === m.actionableKey)?.key ?? m.fixKey })),
    unmatched: s.unmatched,
    checks: (spec.checks ?? []).map((c) => ({ name: c.name, description: c.description, kind: c.kind ?? 'unlabelled' })),
    failureCriterion: spec.failure?.description ?? '',
    spec,
  };
}

function overridesOf(input: { parameters?: { name: string; value: number }[] | null }, template: ModelTemplate): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [i, p] of (input.parameters ?? []).entries()) {
    const def = template.parameters.find((d) => d.name === p.name);
    if (!def) throw AppError.badField(`input.parameters[${i}].name`, `"${p.name}" is not a parameter of the template "${template.key}"`);
    if (!Number.isFinite(p.value) || p.value < def.min || p.value > def.max || (def.integer && !Number.isInteger(p.value))) {
      throw AppError.badField(`input.parameters[${i}].value`, `${p.name} must be ${def.integer ? 'an integer ' : ''}between ${def.min} and ${def.max} ${def.unit}, got ${p.value}`);
    }
    out[p.name] = p.value;
  }
  return out;
}

function templateOrFail(key: string, field: string): ModelTemplate {
  const t = findTemplate(key);
  if (!t) throw AppError.badField(field, `unknown template "${key}"; known: ${TEMPLATES.map((x) => x.key).join(', ')}`);
  return t;
}

@Resolver()
export class ModelSuggestionsResolver {
  constructor(
    private readonly incidents: IncidentsService,
    private readonly models: ModelRunsService,
    private readonly prisma: PrismaService,
  ) {}

  @Query(() => [ModelTemplateInfo], { description: 'The failure-pattern templates a model can be made from.' })
  modelTemplates(): ModelTemplateInfo[] {
    return TEMPLATES.map(templateInfo);
  }

  @RequireRole('editor')
  @Query(() => SuggestModelsPayload, {
    description:
      'Draft models for an incident (editor): templates ranked by its patterns, factors, components and text, each with its parameters read from the text (with provenance) or assumed (with why), its actionables matched to fix scenarios, and its checks. Nothing is stored.',
  })
  async suggestModels(@Args('input') input: SuggestModelsInput, @Loaders() loaders: IncidentLoaders): Promise<SuggestModelsPayload> {
    const incident = await this.incidents.findBySlug(input.incident);
    const text = await incidentText(incident, loaders);
    if (input.template) {
      const t = templateOrFail(input.template, 'input.template');
      return { incident, suggestions: [suggestionView(draftModel(t, text, { overrides: overridesOf(input, t) }))] };
    }
    if (input.parameters?.length) throw AppError.badField('input.parameters', 'parameters need a template: name the template they belong to');
    return { incident, suggestions: suggestModels(text).map(suggestionView) };
  }

  @Mutation(() => AttachSuggestedModelPayload, {
    description:
      "Stores a draft model as a new spec version and attaches it to the incident (editor): the person's confirmation of a suggestion. Runs then name the version that produced them.",
  })
  async attachSuggestedModel(@Args('input') input: AttachSuggestedModelInput, @Loaders() loaders: IncidentLoaders): Promise<AttachSuggestedModelPayload> {
    const t = templateOrFail(input.template, 'input.template');
    const overrides = overridesOf(input, t);
    const incident = await this.incidents.findBySlug(input.incident);
    const current = await this.models.modelOf(incident.id);
    const currentRef = current ? `${current.spec.key}@${current.spec.version}` : null;
    if (input.expectedModel !== undefined && (input.expectedModel ?? null) !== currentRef) {
      throw new AppError('CONFLICT', `The incident's model changed since the draft was made: it is ${currentRef ?? 'none'}, not ${input.expectedModel ?? 'none'}.`, {
        field: 'input.expectedModel',
        current: { model: currentRef, expected: input.expectedModel ?? null },
      });
    }
    const draft = draftModel(t, await incidentText(incident, loaders), { overrides });
    const spec = await this.nextVersion(draft.spec);
    const specVersion = await this.models.createSpec(spec);
    const view = await this.models.attach(incident.slug, specVersion.key, specVersion.version, {});
    const { key, version, title, model } = view.spec;
    return { specVersion, model: { ...view, key, version, title, description: model.description } };
  }

  /** Versions of one key count up; a draft identical to the newest stored version is that version. */
  private async nextVersion(spec: ModelSpec): Promise<ModelSpec> {
    const latest = await this.prisma.modelSpec.findFirst({ where: { key: spec.slug }, orderBy: { createdAt: 'desc' } });
    if (!latest) return { ...spec, version: '1' };
    const same = { ...spec, version: latest.version };
    if (specChecksum(same) === latest.checksum) return same;
    const n = await this.prisma.modelSpec.count({ where: { key: spec.slug } });
    return { ...spec, version: String(n + 1) };
  }
}
