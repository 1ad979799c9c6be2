import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { IncidentLoaders, IncidentsService, type IncidentRecord } from '@hindsight/incidents';
import { MODEL_EXECUTOR, ModelRunsService, specChecksum, type IncidentModelView, type ModelExecutor, type ModelSpecRecord } from '@hindsight/model-runs';
import { TEMPLATES, draftModel, findTemplate, suggestModels, type IncidentText, type ModelSuggestion, type ModelTemplate } from '@hindsight/model-templates';
import { validateSpec, type ModelRunResult, type ModelSpec } from '@hindsight/models';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
export type Draft = ReturnType<typeof draftModel>;

/**
 * Draft models for incidents, and their confirmation: the one place both the GraphQL API and the
 * builder page go through, so a draft reads, runs and attaches the same way everywhere.
 */
@Injectable()
export class ModelSuggestionsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly incidents: IncidentsService,
    private readonly models: ModelRunsService,
    @Inject(MODEL_EXECUTOR) private readonly executor: ModelExecutor,
  ) {}

  findIncident(slug: string): Promise<IncidentRecord> {
    return this.incidents.findBySlug(slug);
  }

  /** An incident as the template suggester reads it: its text, timeline, factors and actionables. */
  async incidentText(incident: IncidentRecord, loaders: IncidentLoaders = new IncidentLoaders(this.prisma)): Promise<IncidentText> {
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

  template(key: string, field: string): ModelTemplate {
    const t = findTemplate(key);
    if (!t) throw AppError.badField(field, `unknown template "${key}"; known: ${TEMPLATES.map((x) => x.key).join(', ')}`);
    return t;
  }

  /** Checks a person's values against the template's ranges; `field(i)` names the offending input. */
  overrides(template: ModelTemplate, values: { name: string; value: number }[], field: (i: number, part: 'name' | 'value') => string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [i, p] of values.entries()) {
      const def = template.parameters.find((d) => d.name === p.name);
      if (!def) throw AppError.badField(field(i, 'name'), `"${p.name}" is not a parameter of the template "${template.key}"`);
      if (!Number.isFinite(p.value) || p.value < def.min || p.value > def.max || (def.integer && !Number.isInteger(p.value))) {
        throw AppError.badField(field(i, 'value'), `${p.name} must be ${def.integer ? 'an integer ' : ''}between ${def.min} and ${def.max} ${def.unit}, got ${p.value}`);
      }
      out[p.name] = p.value;
    }
    return out;
  }

  suggest(text: IncidentText): ModelSuggestion[] {
    return suggestModels(text);
  }

  draft(template: ModelTemplate, text: IncidentText, overrides: Record<string, number>): Draft {
    return draftModel(template, text, { overrides });
  }

  /** Runs every scenario of a draft (as-happened first) in the worker pool, without storing anything. */
  async runDraft(spec: ModelSpec): Promise<ModelRunResult[]> {
    return Promise.all(spec.scenarios.map(async (s) => JSON.parse(await this.executor.execute({ spec, scenarioKey: s.key, checks: false })) as ModelRunResult));
  }

  /** The model attached now, as `key@version`, or null. */
  async attachedRef(incident: IncidentRecord): Promise<string | null> {
    const current = await this.models.modelOf(incident.id);
    return current ? `${current.spec.key}@${current.spec.version}` : null;
  }

  /**
   * Stores a spec as the next version of its key (or the identical newest one) and attaches it.
   * `expectedModel` is what the person saw attached (undefined: not checked).
   */
  async confirm(incident: IncidentRecord, spec: unknown, expectedModel: string | null | undefined, field: string): Promise<{ specVersion: ModelSpecRecord; view: IncidentModelView }> {
    const valid = validateSpec(spec);
    // Storing the version and attaching it are one write: a failure in either leaves neither.
    // The advisory lock serialises confirmations for one incident, so the version check, the
    // next version number and the binding all see the same state.
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`model-confirm:${incident.id}`}))`;
      const bound = await this.models.modelsOf([incident.id], tx);
      const current = bound[0] ? `${bound[0].spec.key}@${bound[0].spec.version}` : null;
      if (expectedModel !== undefined && (expectedModel ?? null) !== current) {
        throw new AppError('CONFLICT', `The incident's model changed since the draft was made: it is ${current ?? 'none'}, not ${expectedModel ?? 'none'}.`, {
          field,
          current: { model: current, expected: expectedModel ?? null },
        });
      }
      const versioned = await this.nextVersion(valid, tx);
      const specVersion = await this.models.createSpec(versioned, tx);
      const view = await this.models.attach(incident.slug, specVersion.key, specVersion.version, {}, tx);
      return { specVersion, view };
    });
  }

  /** Versions of one key count up; a draft identical to the newest stored version is that version. */
  private async nextVersion(spec: ModelSpec, db: Prisma.TransactionClient): Promise<ModelSpec> {
    const latest = await db.modelSpec.findFirst({ where: { key: spec.slug }, orderBy: { createdAt: 'desc' } });
    if (!latest) return { ...spec, version: '1' };
    const same = { ...spec, version: latest.version };
    if (specChecksum(same) === latest.checksum) return same;
    const n = await db.modelSpec.count({ where: { key: spec.slug } });
    return { ...spec, version: String(n + 1) };
  }
}
