/**
 * From an incident to draft models: rank the templates by the incident's patterns, causal
 * factors, components and text (each point with its reason), fill each template's parameters,
 * match actionables to fix scenarios by remedy kind, and build the draft spec. Nothing here is
 * stored: a person reviews the draft and attaches it.
 */
import { validateSpec, type ModelSpec } from '@hindsight/models';
import { documentChecks } from './document.checks';
import type { IncidentText } from './incident-text';
import { fillParameters, type FillOptions } from './parameter.filler';
import { classifyRemedies, type RemedyKind } from './remedy';
import { instantiate, type ScenarioBinding } from './template.builder';
import type { ModelTemplate, ParameterFill } from './template.types';
import { TEMPLATES, findTemplate } from './templates';

export interface RankReason {
  /** `pattern`, `factor`, `component`, `text`, `actionable`. */
  from: 'pattern' | 'factor' | 'component' | 'text' | 'actionable';
  detail: string;
  weight: number;
}

export interface ActionableMatch {
  actionableKey: string;
  actionableTitle: string;
  remedy: RemedyKind;
  /** The words of the actionable that name the remedy. */
  evidence: string;
  fixKey: string;
}

export interface ModelSuggestion {
  template: ModelTemplate;
  score: number;
  reasons: RankReason[];
  parameters: ParameterFill[];
  matches: ActionableMatch[];
  /** Actionables whose remedy the template has no fix for, or that name no remedy. */
  unmatched: { actionableKey: string; title: string; remedies: RemedyKind[] }[];
  spec: ModelSpec;
}

function fold(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Scores every template for the incident, best first; ties keep the templates' own order. */
export function rankTemplates(incident: IncidentText): { template: ModelTemplate; score: number; reasons: RankReason[] }[] {
  const factorText = incident.causalFactors.map((f) => fold(f.text));
  const bodyText = fold([incident.title, incident.summary, incident.impact, incident.narrative, ...incident.timeline.map((e) => e.text)].join('\n'));
  const components = incident.components.map(fold);
  return TEMPLATES.map((template, order) => {
    const reasons: RankReason[] = [];
    for (const p of incident.patterns) {
      const w = template.patterns[p];
      if (w) reasons.push({ from: 'pattern', detail: `pattern ${p}`, weight: w });
    }
    for (const k of template.keywords) {
      const inFactor = incident.causalFactors.find((_, i) => k.re.test(factorText[i]!));
      if (inFactor) reasons.push({ from: 'factor', detail: `${k.reason} (factor ${inFactor.key})`, weight: k.weight * 1.5 });
      else if (k.re.test(bodyText)) reasons.push({ from: 'text', detail: k.reason, weight: k.weight });
      const comp = components.find((c) => k.re.test(c));
      if (comp) reasons.push({ from: 'component', detail: `component "${comp}": ${k.reason}`, weight: k.weight * 0.5 });
    }
    // The follow-ups show what the authors took the mechanism to be: each actionable the
    // template has a fix for counts, so the model can judge the incident's own remedies.
    for (const m of matchActionables(template, incident).matches) {
      reasons.push({ from: 'actionable', detail: `actionable ${m.actionableKey} is a remedy of kind ${m.remedy}, which the template models`, weight: 1 });
    }
    const score = reasons.reduce((s, r) => s + r.weight, 0);
    return { template, score, reasons, order };
  })
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ template, score, reasons }) => ({ template, score: Number(score.toFixed(2)), reasons }));
}

function wordsOf(text: string): Set<string> {
  return new Set(fold(text).split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4));
}

/** Of the template's fixes of one remedy kind, the one whose words the actionable shares most (the first on a tie). */
function bestFix(template: ModelTemplate, kind: RemedyKind, words: Set<string>) {
  const fixes = template.fixes.filter((f) => f.remedy === kind);
  let best = fixes[0];
  let bestScore = -1;
  for (const f of fixes) {
    const score = [...wordsOf(`${f.title} ${f.description}`)].filter((w) => words.has(w)).length;
    if (score > bestScore) {
      best = f;
      bestScore = score;
    }
  }
  return best;
}

/** Each actionable's remedy kinds against the template's fixes: one match per actionable (its first kind the template has). */
export function matchActionables(template: ModelTemplate, incident: IncidentText): { matches: ActionableMatch[]; unmatched: ModelSuggestion['unmatched'] } {
  const matches: ActionableMatch[] = [];
  const unmatched: ModelSuggestion['unmatched'] = [];
  for (const a of incident.actionables) {
    const kinds = classifyRemedies(`${a.title}. ${a.description}`);
    const words = wordsOf(`${a.title} ${a.description}`);
    const hit = kinds.map((k) => ({ k, fix: bestFix(template, k.kind, words) })).find((x) => x.fix);
    if (hit) matches.push({ actionableKey: a.key, actionableTitle: a.title, remedy: hit.k.kind, evidence: hit.k.evidence, fixKey: hit.fix!.key });
    else unmatched.push({ actionableKey: a.key, title: a.title, remedies: kinds.map((k) => k.kind) });
  }
  return { matches, unmatched };
}

/** The incident's own words that the failure happened: the first sentence of its impact, else of its summary. */
function failureQuote(incident: IncidentText): { quote: string; place: string } {
  for (const [text, place] of [[incident.impact, 'impact'], [incident.summary, 'summary'], [incident.title, 'title']] as const) {
    const first = text.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s/)[0];
    if (first) return { quote: first.slice(0, 400), place };
  }
  return { quote: incident.slug, place: 'slug' };
}

export interface DraftOptions extends FillOptions {
  version?: string;
}

/** The draft model of one template for one incident. */
export function draftModel(template: ModelTemplate, incident: IncidentText, options: DraftOptions = {}): Omit<ModelSuggestion, 'score' | 'reasons'> {
  const parameters = fillParameters(template, incident, options);
  const { matches, unmatched } = matchActionables(template, incident);
  const bindings: ScenarioBinding[] = matches.map((m) => ({ fixKey: m.fixKey, actionableKey: m.actionableKey }));
  const slug = `${incident.slug}-${template.key}`.slice(0, 100).replace(/-+$/, '');
  const trigger = incident.timeline.find((e) => e.kind === 'trigger' && e.at);
  const triggerAt = parameters.find((p) => p.name === 'triggerAt')?.value ?? 0;
  const timeOrigin = trigger?.at ? new Date(Date.parse(trigger.at) - triggerAt * 1000).toISOString() : undefined;
  const built = instantiate(template, parameters, {
    slug,
    version: options.version ?? '1',
    title: `${incident.title.slice(0, 120)}: ${template.title.toLowerCase()}`,
    description: `${template.failureClass}, for "${incident.title.slice(0, 200)}". A draft from the template "${template.key}": ${parameters.filter((p) => p.from === 'text' || p.from === 'timeline').length} of ${parameters.length} parameters read from the incident, the others assumed (each says why).`,
    failureSource: failureQuote(incident),
    ...(timeOrigin ? { timeOrigin } : {}),
    bindings,
  });
  // Checks against what the document reports of its own course (labelled reproduces or fitted).
  const unit = built.probes.find((p) => p.metric === template.failure.metric)?.unit ?? 'value';
  const fromDocument = documentChecks(template, incident, parameters, Number(built.horizon), built.points, unit);
  const spec = fromDocument.length > 0 ? validateSpec({ ...built, checks: [...(built.checks ?? []), ...fromDocument] }) : built;
  return { template, parameters, matches, unmatched, spec };
}

/** Ranked drafts for an incident: every template with a positive score, best first (at least the best one). */
export function suggestModels(incident: IncidentText, options: { limit?: number } = {}): ModelSuggestion[] {
  const ranked = rankTemplates(incident);
  // With no signal at all, a capacity loss is the most general reading of an outage.
  const fallback = ranked.find((r) => r.template.key === 'capacity-loss')!;
  const positive = ranked.filter((r) => r.score > 0);
  const chosen = (positive.length > 0 ? positive : [fallback]).slice(0, options.limit ?? 3);
  return chosen.map((r) => ({ ...draftModel(r.template, incident), score: r.score, reasons: r.reasons }));
}

export { findTemplate };
