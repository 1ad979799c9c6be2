import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '@hindsight/domain';
import type { IncidentRecord } from '@hindsight/incidents';
import { remedyOfScenario, type ModelTemplate, type ParameterFill } from '@hindsight/model-templates';
import { ModelSpecError, type ModelSpec } from '@hindsight/models';
import { modelBuilderView, type BuilderScenarioResult, type ModelBuilderProps } from '@hindsight/web';
import { principalOf } from '../../auth/request-principal';
import { RequireRole } from '../../auth/roles.decorator';
import { ModelSuggestionsService, type Draft } from '../../models/model-suggestions.service';
import { PageErrorFilter } from '../page-error.filter';
import { formFields, sendPage } from '../page-response';
import { layoutView } from '../views/layout.view';

function basisOf(p: ParameterFill): string {
  const v = p.provenance;
  if (v.kind === 'source') return `“${v.quote}” (${v.place})`;
  if (v.kind === 'derived') return v.formula;
  return v.why;
}

/** `p.<name>` fields of a submitted form, as numbers; a value that is not a number names its field. */
function parameterFields(form: Record<string, string>): { name: string; value: number }[] {
  return Object.entries(form)
    .filter(([k, v]) => k.startsWith('p.') && v.trim() !== '')
    .map(([k, v]) => {
      const value = Number(v);
      if (!Number.isFinite(value)) throw AppError.badField(k, `expected a number, got "${v}"`);
      return { name: k.slice(2), value };
    });
}

/**
 * The model builder on an incident's page, for editors: GET shows the suggested templates and the
 * chosen draft (and runs it with `run=1`), POST attaches it or saves the expert's JSON as a new
 * version. Who may use it is decided by the same guard and principal as the API.
 */
@Controller('incidents')
@UseFilters(PageErrorFilter)
export class ModelBuilderPageController {
  constructor(private readonly suggestions: ModelSuggestionsService) {}

  @Get(':slug/model-builder')
  @RequireRole('editor')
  async show(@Param('slug') slug: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = formFields(query) ?? {};
    const incident = await this.suggestions.findIncident(slug);
    const { props } = await this.build(incident, form);
    if (form.run) props.results = await this.results(props, JSON.parse(props.specJson) as ModelSpec);
    await this.send(req, res, 200, incident, props);
  }

  @Post(':slug/model-builder')
  async submit(@Param('slug') slug: string, @Body() body: Record<string, unknown> | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    const form = formFields(body ?? {}) ?? {};
    const incident = await this.suggestions.findIncident(slug);
    const expected = form.expectedModel === undefined ? undefined : form.expectedModel || null;
    const { props, draft } = await this.build(incident, form);
    let spec: unknown = draft.spec;
    if (form.action === 'save-json') {
      props.specJson = form.spec ?? '';
      try {
        spec = JSON.parse(form.spec ?? '');
      } catch (e) {
        props.errors = [{ path: 'spec', reason: `not JSON: ${(e as Error).message}` }];
        await this.send(req, res, 422, incident, props);
        return;
      }
    } else if (form.action !== 'attach') {
      throw AppError.badField('action', 'expected "attach" or "save-json"');
    }
    try {
      await this.suggestions.confirm(incident, spec, expected, 'expectedModel');
    } catch (e) {
      if (e instanceof ModelSpecError) {
        props.errors = e.issues.map((i) => ({ path: i.path, reason: i.reason }));
        await this.send(req, res, 422, incident, props);
        return;
      }
      if (e instanceof AppError && e.code === 'CONFLICT') {
        props.notice = `${e.message} Review the draft again before attaching.`;
        props.attached = await this.suggestions.attachedRef(incident);
        await this.send(req, res, 409, incident, props);
        return;
      }
      throw e;
    }
    res.redirect(303, `/incidents/${encodeURIComponent(incident.slug)}#model`);
  }

  private async build(incident: IncidentRecord, form: Record<string, string>): Promise<{ props: ModelBuilderProps; draft: Draft }> {
    const text = await this.suggestions.incidentText(incident);
    const ranked = this.suggestions.suggest(text);
    const template: ModelTemplate = form.template ? this.suggestions.template(form.template, 'template') : ranked[0]!.template;
    const overrides = this.suggestions.overrides(template, parameterFields(form), (i) => `p.${parameterFields(form)[i]!.name}`);
    const draft = this.suggestions.draft(template, text, overrides);
    const props: ModelBuilderProps = {
      incident: { slug: incident.slug, title: incident.title },
      suggestions: ranked.map((s) => ({ key: s.template.key, title: s.template.title, failureClass: s.template.failureClass, score: s.score, reasons: s.reasons.map((r) => r.detail) })),
      selected: template.key,
      failureCriterion: draft.spec.failure?.description ?? '',
      parameters: draft.parameters.map((p) => ({ name: p.name, value: p.value, unit: p.unit, min: p.min, max: p.max, description: p.description, from: p.from, basis: basisOf(p), figure: p.figure })),
      matches: draft.matches.map((m) => ({ ...m, scenarioKey: draft.spec.scenarios.find((s) => s.actionableKey === m.actionableKey)?.key ?? m.fixKey })),
      unmatched: draft.unmatched.map((u) => ({ actionableKey: u.actionableKey, title: u.title })),
      checks: (draft.spec.checks ?? []).map((c) => ({ name: c.name, kind: c.kind ?? 'unlabelled' })),
      results: null,
      attached: await this.suggestions.attachedRef(incident),
      specJson: JSON.stringify(draft.spec, null, 2),
      errors: [],
      notice: null,
    };
    if (!ranked.some((s) => s.template.key === template.key)) props.suggestions.push({ key: template.key, title: template.title, failureClass: template.failureClass, score: 0, reasons: ['chosen by you'] });
    return { props, draft };
  }

  private async results(props: ModelBuilderProps, spec: ModelSpec): Promise<BuilderScenarioResult[]> {
    const template = this.suggestions.template(props.selected, 'template');
    const runs = await this.suggestions.runDraft(spec);
    return runs.map((r) => {
      const scenario = spec.scenarios.find((s) => s.key === r.scenario.key)!;
      const match = props.matches.find((m) => m.actionableKey === scenario.actionableKey);
      const asHappened = scenario.key === 'as-happened';
      return {
        key: scenario.key,
        title: scenario.title,
        actionable: match ? { key: match.actionableKey, title: match.actionableTitle } : null,
        remedy: remedyOfScenario(template, scenario.key),
        outcome: asHappened ? (r.failure?.met ? 'FAILS' : 'NO FAILURE') : (r.verdict?.outcome ?? '—'),
        reason: asHappened ? (r.failure?.met ? `meets the failure criterion from ${Math.round(r.failure.onset ?? 0)} s for ${Math.round(r.failure.duration)} s` : 'does not meet the failure criterion: the draft does not reproduce the failure') : (r.verdict?.reason ?? ''),
      };
    });
  }

  private async send(req: Request, res: Response, status: number, incident: IncidentRecord, props: ModelBuilderProps): Promise<void> {
    // A signed-in person's forms carry the session's synchroniser token, as every writing form does.
    props.csrf = (await principalOf(req))?.csrfToken ?? null;
    sendPage(res, status, layoutView({ title: `Model builder: ${incident.title}`, main: modelBuilderView(props), active: 'incidents' }));
  }
}
