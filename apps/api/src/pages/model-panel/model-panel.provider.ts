import { Inject, Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import type { ErrorDetails } from '@hindsight/domain';
import { boundaryTarget, formatQuantity, type FixVerdict, type ModelSpec } from '@hindsight/models';
import { toAppError } from '../../common/errors/app-error.mapping';
import { IncidentLoaders } from '@hindsight/incidents';
import { checkKindCounts, ModelExplorations, ModelRunsService, SCENARIO_AS_HAPPENED, type IncidentModelView, type ModelRunRecord } from '@hindsight/model-runs';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import type { ActionableVerdict, IncidentModelPanel, ModelPanelOutput, ModelPanelRequest } from '../incident-model-panel.token';
import type { ModelPanelModel, PanelMode, PanelProbe, PanelScenario } from './model-panel.types';
import { emptyModelPanelView, modelPanelView } from './model-panel.view';
import { ALL_SCENARIOS, allowedRange, BOUNDARY_CHECK_FIELD, BOUNDARY_FIGURE_FIELD, parameterField, parseWhatIfForm, type WhatIfForm, type WhatIfParameter } from './what-if-form.parser';

/** The checks evaluated on a scenario: what a boundary search on the page may bisect on besides the failure criterion. */
function boundaryChecks(spec: ModelSpec, scenarioKey: string): Array<{ name: string; description: string }> {
  return (spec.checks ?? []).filter((c) => c.scenarios === '*' || c.scenarios.includes(scenarioKey)).map((c) => ({ name: c.name, description: c.description }));
}

const BUSY = 'Every model worker is busy just now, so some runs were not made. Try again in a moment; runs already made are kept.';
const BUSY_PROBLEM = 'every model worker was busy; try again in a moment';

/**
 * The executable-model panel of an incident page: the default runs of every scenario (made on
 * first view when none is stored), or, with what-if values in the query, the same scenarios run
 * with the reader's values. Runs go through ModelRunsService, so identical questions are answered
 * from storage and the executor's bounds apply; one request never asks for more runs than the
 * model has scenarios, one at a time.
 */
@Injectable()
export class ModelPanel implements IncidentModelPanel {
  constructor(
    private readonly models: ModelRunsService,
    private readonly explorations: ModelExplorations,
    private readonly prisma: PrismaService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async render(request: ModelPanelRequest): Promise<ModelPanelOutput> {
    // Most incidents have no model yet: one indexed lookup says so, where loading the binding
    // with its spec and scenarios costs three statements on every such page.
    const bound = await this.prisma.incidentModel.findUnique({ where: { incidentId: request.incidentId }, select: { incidentId: true } });
    if (!bound) return { html: emptyModelPanelView().value, verdicts: [] };
    const view = await this.models.modelOf(request.incidentId);
    if (!view || view.scenarios.length === 0) return { html: emptyModelPanelView().value, verdicts: [] };
    const model = await this.panelModel(view, request);
    // The default runs drawn already carry the verdicts; a what-if needs the stored default ones.
    const drawnAll = model.mode !== 'what-if' && model.scenarios.length === view.scenarios.length;
    const verdicts = drawnAll ? verdictsOf(view, new Map(model.scenarios.map((s) => [s.key, s.run?.verdict ?? null]))) : await this.storedVerdicts(view);
    return { html: modelPanelView(model).value, verdicts };
  }

  private async panelModel(view: IncidentModelView, request: ModelPanelRequest): Promise<ModelPanelModel> {
    const spec = view.spec.model;
    const parameters: WhatIfParameter[] = spec.parameters.map((p) => ({ ...p, default: view.defaultParameters[p.name] ?? p.default }));
    const asHappened = view.scenarios.find((s) => s.key === SCENARIO_AS_HAPPENED) ?? view.scenarios[0]!;
    const others = view.scenarios.filter((s) => s.key !== asHappened.key);
    const form = parseWhatIfForm(
      parameters,
      others.map((s) => s.key),
      request.form,
      boundaryChecks(spec, asHappened.key).map((c) => c.name),
      spec.figures ?? [],
    );
    checkBoundaryTarget(spec, asHappened.key, form);
    const drawn = [asHappened, ...(form.scenario === ALL_SCENARIOS ? others : others.filter((s) => s.key === form.scenario))];
    let mode: PanelMode = form.errors.length > 0 ? 'refused' : Object.keys(form.overrides).length > 0 ? 'what-if' : 'default';

    const outcomes = new Map<string, { run: ModelRunRecord | null; problem: string | null }>();
    let busy: string | null = null;

    if (mode === 'what-if') {
      for (const scenario of drawn) {
        if (busy) {
          outcomes.set(scenario.key, { run: null, problem: BUSY_PROBLEM });
          continue;
        }
        // The engine keeps a fix's own parameter values over the reader's (and judges the fix
        // against the as-happened run with the reader's values); the panel says which it kept.
        const overrides = form.overrides;
        const outcome = await this.attempt(() => this.models.runFor(view, scenario.key, overrides, this.config.models.defaultSeed, request.client), parameters, form.errors);
        if (outcome === 'busy') {
          busy = BUSY;
          outcomes.set(scenario.key, { run: null, problem: BUSY_PROBLEM });
        } else if (outcome === 'refused') {
          mode = 'refused';
          break;
        } else {
          outcomes.set(scenario.key, { run: outcome, problem: null });
        }
      }
    }

    if (mode !== 'what-if') {
      outcomes.clear();
      const latest = await this.models.latestRuns([view.incidentId]);
      for (const scenario of drawn) {
        const stored = latest.get(`${view.incidentId}:${scenario.key}`) ?? null;
        if (stored || mode === 'refused' || busy) {
          outcomes.set(scenario.key, { run: stored, problem: stored ? null : busy ? BUSY_PROBLEM : 'no run with the default values is stored yet' });
          continue;
        }
        // First view of a model (or of a new spec version): make the default run now, so the
        // reader sees results rather than an invitation to come back later.
        const outcome = await this.attempt(() => this.models.runFor(view, scenario.key, {}, this.config.models.defaultSeed), parameters, []);
        if (outcome === 'busy') busy = BUSY;
        if (typeof outcome !== 'string') outcomes.set(scenario.key, { run: outcome, problem: null });
        else outcomes.set(scenario.key, { run: null, problem: outcome === 'busy' ? BUSY_PROBLEM : 'the model refused its own default values' });
      }
    }

    const actionableTitles = await this.actionableTitles(view);
    const scenarios: PanelScenario[] = drawn.map((s) => {
      return {
        key: s.key,
        title: s.title,
        description: s.description,
        asHappened: s.key === asHappened.key,
        actionable: s.actionableKey ? { key: s.actionableKey, title: actionableTitles.get(s.actionableKey) ?? null } : null,
        run: outcomes.get(s.key)?.run ?? null,
        problem: outcomes.get(s.key)?.problem ?? null,
        keeps:
          mode !== 'what-if'
            ? []
            : this.models.conflicts(spec, form.overrides, s.key).map((c) => ({
                name: c.parameter,
                value: c.applied,
                requested: c.requested,
                unit: parameters.find((p) => p.name === c.parameter)?.unit ?? '',
              })),
      };
    });

    const runs = scenarios.flatMap((s) => (s.run?.series ? [s.run.series] : []));
    const probes: PanelProbe[] = spec.probes.map((p) => {
      const stored = runs.flatMap((r) => r.series).find((x) => x.key === p.key);
      return { key: p.key, label: stored?.label ?? p.label, unit: stored?.unit ?? p.unit ?? '' };
    });
    const asHappenedSeries = scenarios[0]?.run?.series ?? null;
    const asked = form.errors.length === 0 && !busy;
    const ensemble = asked && form.seeds ? await this.ensembleOf(request, asHappened.key, form.overrides, form.seeds, parameters, form.errors) : null;
    const sweep = asked && form.sweep && !form.sweep2 ? await this.sweepOf(request, asHappened.key, form.overrides, form.sweep, parameters, form.errors) : null;
    const grid = asked && form.sweep && form.sweep2 ? await this.gridOf(request, asHappened.key, form.overrides, [form.sweep, form.sweep2], parameters, form.errors) : null;
    const boundary = asked && form.boundary ? await this.boundaryOf(request, asHappened.key, form.overrides, form.boundary, parameters, form.errors) : null;
    return {
      ensemble,
      sweep,
      grid,
      boundary,
      slug: request.slug,
      title: view.spec.title,
      description: spec.description,
      mode,
      parameters,
      form,
      choices: others.map((s) => ({ key: s.key, title: s.title })),
      scenarios,
      probes,
      horizon: Math.max(0, ...runs.map((r) => r.horizon)) || (typeof spec.horizon === 'number' ? spec.horizon : 0),
      timeOrigin: asHappenedSeries?.timeOrigin ?? spec.timeOrigin ?? null,
      busy,
      failureCriterion: spec.failure?.description ?? null,
      evidence: checkKindCounts(spec),
      boundaryChecks: boundaryChecks(spec, asHappened.key),
      boundaryFigures: (spec.figures ?? []).map((f) => ({ name: f.name, label: f.label, unit: f.unit })),
    };
  }

  /**
   * One run. A saturated executor is a normal condition under load, told to the reader as such;
   * a value the engine refuses becomes an error next to its field. Anything else is a fault and
   * propagates (the page shows the panel's own error and logs it).
   */
  private async attempt<T>(
    run: () => Promise<T>,
    parameters: readonly WhatIfParameter[],
    errors: { field: string; message: string }[],
  ): Promise<T | 'busy' | 'refused'> {
    try {
      return await run();
    } catch (thrown) {
      const error = toAppError(thrown);
      if (!error) throw thrown;
      if (error.code === 'TOO_MANY_REQUESTS') return 'busy';
      if (error.code !== 'BAD_USER_INPUT') throw thrown;
      const details = error.details as ErrorDetails['BAD_USER_INPUT'];
      const name = details.parameter ?? String(details.field ?? '').replace(/^parameters\./, '');
      const parameter = parameters.find((p) => p.name === name);
      errors.push(parameter ? { field: parameterField(parameter.name), message: `${error.message.replace(/^parameters\.[^:]*:\s*/, '')}. Enter ${allowedRange(parameter)}.` } : { field: 'form', message: error.message });
      return 'refused';
    }
  }

  /** The as-happened run over `seeds` seeds: bands per probe and the failure probability in words. */
  private async ensembleOf(request: ModelPanelRequest, scenarioKey: string, overrides: Record<string, number>, seeds: number, parameters: readonly WhatIfParameter[], errors: { field: string; message: string }[]): Promise<ModelPanelModel['ensemble']> {
    const outcome = await this.attemptExploration(() => this.explorations.ensemble({ incidentSlug: request.slug, scenarioKey, parameters: overrides, seeds }, request.client), parameters, errors);
    if (outcome === null) return null;
    if (outcome === 'busy') return { pending: BUSY };
    if (!outcome.result) return { pending: `${outcome.runsFinished} of ${seeds} runs are done; the others are waiting for a model worker. Reload in a moment: finished runs are kept.` };
    const e = outcome.result;
    return { runs: e.seeds.length, text: e.text, bands: Object.fromEntries(e.series.map((s) => [s.key, { low: s.p10, high: s.p90 }])) };
  }

  /** The as-happened run over a sweep of one parameter, charted by the worst value of the failure metric (or the first figure). */
  private async sweepOf(request: ModelPanelRequest, scenarioKey: string, overrides: Record<string, number>, sweep: NonNullable<ModelPanelModel['form']['sweep']>, parameters: readonly WhatIfParameter[], errors: { field: string; message: string }[]): Promise<ModelPanelModel['sweep']> {
    const outcome = await this.attemptExploration(() => this.explorations.sweep({ incidentSlug: request.slug, scenarioKey, parameters: overrides, axes: [sweep] }, request.client), parameters, errors);
    if (outcome === null) return null;
    if (outcome === 'busy') return { pending: BUSY };
    if (!outcome.result) return { pending: `${outcome.runsFinished} of ${sweep.count} runs are done; the others are waiting for a model worker. Reload in a moment: finished runs are kept.` };
    const s = outcome.result;
    const p = parameters.find((x) => x.name === sweep.parameter)!;
    const figure = s.figures[0];
    return {
      parameter: p.name,
      unit: p.unit,
      figureLabel: figure?.label ?? 'Failure criterion met',
      figureUnit: figure?.unit ?? '',
      text: s.text,
      points: s.points.map((pt) => ({ x: pt.values[p.name]!, y: figure ? (pt.figures[figure.name] ?? null) : pt.failureMet === null ? null : Number(pt.failureMet), failureMet: pt.failureMet })),
    };
  }

  /** The as-happened run over a grid of two parameters: the failure criterion in every cell. */
  private async gridOf(
    request: ModelPanelRequest,
    scenarioKey: string,
    overrides: Record<string, number>,
    axes: [NonNullable<ModelPanelModel['form']['sweep']>, NonNullable<ModelPanelModel['form']['sweep']>],
    parameters: readonly WhatIfParameter[],
    errors: { field: string; message: string }[],
  ): Promise<ModelPanelModel['grid']> {
    const outcome = await this.attemptExploration(() => this.explorations.sweep({ incidentSlug: request.slug, scenarioKey, parameters: overrides, axes }, request.client), parameters, errors);
    if (outcome === null) return null;
    if (outcome === 'busy') return { pending: BUSY };
    const total = axes[0].count * axes[1].count;
    if (!outcome.result) return { pending: `${outcome.runsFinished} of ${total} runs are done; the others are waiting for a model worker. Reload in a moment: finished runs are kept.` };
    const s = outcome.result;
    const axis = (a: (typeof s.axes)[number]) => {
      const p = parameters.find((x) => x.name === a.parameter);
      return { parameter: a.parameter, label: p?.label ?? a.parameter, unit: a.unit, values: a.values };
    };
    const [x, y] = [axis(s.axes[0]!), axis(s.axes[1]!)];
    const at = new Map(s.points.map((pt) => [`${pt.values[x.parameter]}|${pt.values[y.parameter]}`, pt]));
    const cells = y.values.map((yv) =>
      x.values.map((xv) => {
        const pt = at.get(`${xv}|${yv}`);
        return { met: pt?.failureMet ?? null, onset: pt?.onset ?? null, error: pt?.error?.message ?? (pt ? null : 'no run') };
      }),
    );
    return { x, y, criterion: s.failureCriterion, cells, text: s.text };
  }

  /** Bisection on the failure criterion over one parameter: every probe charted (1 = met), and the answer in words. */
  private async boundaryOf(request: ModelPanelRequest, scenarioKey: string, overrides: Record<string, number>, b: NonNullable<ModelPanelModel['form']['boundary']>, parameters: readonly WhatIfParameter[], errors: { field: string; message: string }[]): Promise<ModelPanelModel['boundary']> {
    const outcome = await this.attemptExploration(() => this.explorations.boundary({ incidentSlug: request.slug, scenarioKey, parameters: overrides, ...b }, request.client), parameters, errors);
    if (outcome === null) return null;
    if (outcome === 'busy') return { pending: BUSY };
    if (!outcome.result) return { pending: `${outcome.runsFinished} runs of the search are done; the next is waiting for a model worker. Reload in a moment: finished runs are kept.` };
    const r = outcome.result;
    // On a check, each point is whether the check passed; on a figure, the figure's value. The
    // colour of a point stays the failure criterion's.
    const check = r.target.check;
    const figure = r.target.figure;
    const base = { parameter: r.parameter, unit: r.unit, text: r.text };
    if (figure) {
      return {
        ...base,
        heading: `Where ${figure.label} crosses ${formatQuantity(figure.value, figure.unit)} along ${r.parameter}`,
        figureLabel: figure.label,
        figureUnit: figure.unit,
        points: r.probes.map((p) => ({ x: p.value, y: p.figureValue, failureMet: p.failureMet })),
        reference: { value: figure.value, label: `${figure.op} ${formatQuantity(figure.value, figure.unit)}: the value searched for` },
      };
    }
    return {
      ...base,
      heading: `Where ${check ? 'the check' : 'the failure criterion'} flips along ${r.parameter}`,
      figureLabel: check ? `Check "${check.name}" passes (1 = yes, 0 = no)` : 'Failure criterion met (1 = yes, 0 = no)',
      figureUnit: '',
      points: r.probes.map((p) => ({ x: p.value, y: (check ? p.checkPassed : p.failureMet) ? 1 : 0, failureMet: p.failureMet })),
    };
  }

  /** An exploration's answer; null when refused (the reason is then next to the form field); busy when the workers are. */
  private async attemptExploration<T>(run: () => Promise<T>, parameters: readonly WhatIfParameter[], errors: { field: string; message: string }[]): Promise<T | 'busy' | null> {
    const outcome = await this.attempt(run, parameters, errors);
    return outcome === 'refused' ? null : outcome;
  }

  /** Verdicts of the stored default runs. */
  private async storedVerdicts(view: IncidentModelView): Promise<ActionableVerdict[]> {
    const latest = await this.models.latestRuns([view.incidentId]);
    return verdictsOf(view, new Map(view.scenarios.map((s) => [s.key, latest.get(`${view.incidentId}:${s.key}`)?.verdict ?? null])));
  }

  /** Titles of the actionables the fix scenarios switch on; one query, and only when a scenario names one. */
  private async actionableTitles(view: IncidentModelView): Promise<Map<string, string>> {
    if (!view.scenarios.some((s) => s.actionableKey)) return new Map();
    const actionables = await new IncidentLoaders(this.prisma).actionables.load(view.incidentId);
    return new Map(actionables.map((a) => [a.key, a.title]));
  }
}

/**
 * The engine's check of what a boundary search bisects on (a known figure, not with a check),
 * made before anything runs, its refusal shown next to the field it names.
 */
function checkBoundaryTarget(spec: ModelSpec, scenarioKey: string, form: WhatIfForm): void {
  if (!form.boundary) return;
  const { issue } = boundaryTarget(spec, scenarioKey, form.boundary);
  if (!issue) return;
  const message = `${issue.reason.charAt(0).toUpperCase()}${issue.reason.slice(1)}.`;
  form.errors.push({ field: issue.path.startsWith('boundary.figure') ? BOUNDARY_FIGURE_FIELD : BOUNDARY_CHECK_FIELD, message });
}

/** One verdict per actionable a scenario models; several scenarios may model one fix, and the first listed speaks for it. */
function verdictsOf(view: IncidentModelView, verdicts: Map<string, FixVerdict | null>): ActionableVerdict[] {
  const out = new Map<string, ActionableVerdict>();
  for (const s of view.scenarios) {
    const verdict = verdicts.get(s.key);
    if (!s.actionableKey || out.has(s.actionableKey) || !verdict) continue;
    out.set(s.actionableKey, { actionableKey: s.actionableKey, outcome: verdict.outcome, reason: verdict.reason, scenarioTitle: s.title });
  }
  return [...out.values()];
}
