import type { ActionableStatus, CausalLinkKind, FactorRole, ReferenceKind, TimelineEventKind } from '@hindsight/domain';
import type { CustomerImpact, IncidentDuration } from '@hindsight/incidents';
import { PRECISION_LABELS } from '@hindsight/web';

export const STATUS_LABELS: Record<ActionableStatus, string> = {
  open: 'Open',
  in_progress: 'In progress',
  done: 'Done',
  wont_do: 'Won’t do',
};

export const EVENT_KIND_LABELS: Record<TimelineEventKind, string> = {
  trigger: 'Trigger',
  detection: 'Detection',
  escalation: 'Escalation',
  mitigation: 'Mitigation',
  recovery: 'Recovery',
  observation: 'Observation',
};

export const ROLE_LABELS: Record<FactorRole, string> = {
  trigger: 'Trigger',
  condition: 'Condition',
  amplifier: 'Amplifier',
  latent: 'Latent condition',
  mitigating: 'Mitigating',
};

export const LINK_KIND_VERBS: Record<CausalLinkKind, string> = {
  causes: 'causes',
  amplifies: 'amplifies',
  enables: 'enables',
};

export const REFERENCE_KIND_LABELS: Record<ReferenceKind, string> = {
  phabricator: 'Phabricator',
  github_pull: 'GitHub pull request',
  github_issue: 'GitHub issue',
  jira: 'Jira',
  url: 'Link',
  gerrit: 'Gerrit change',
  gitlab_issue: 'GitLab issue',
  gitlab_merge_request: 'GitLab merge request',
  linear: 'Linear',
};

/**
 * A factor's name: its written title, or, for a factor stored without one, its stable key read as
 * words (`slow-parsoid-render` → "Slow parsoid render").
 */
export function factorLabel(key: string, title?: string | null): string {
  if (title) return title;
  const words = key.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Calendar day in UTC, the unit due dates are compared in. */
export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function isOverdue(a: { dueDate: Date | null; status: ActionableStatus }, today: string): boolean {
  return a.dueDate !== null && (a.status === 'open' || a.status === 'in_progress') && a.dueDate.toISOString().slice(0, 10) < today;
}

/** Shown for a value the source did not state (an imported draft's organization, a factor's component). */
export const NOT_STATED = 'not stated';

/** A duration in minutes as people read it: "6 min", "1 h 5 min", "29.2 h". */
function minutesText(minutes: number): string {
  if (minutes < 60) return `${Math.round(minutes * 10) / 10} min`;
  if (minutes < 24 * 60) {
    const h = Math.floor(minutes / 60);
    const m = Math.round(minutes - h * 60);
    return m === 0 ? `${h} h` : `${h} h ${m} min`;
  }
  return `${(minutes / 60).toFixed(1)} h`;
}

/** A duration in words with its precision: "about 50 min (approximate)", "3 h 23 min (to the second)". */
export function durationText(d: IncidentDuration): string {
  return `${d.approximate ? 'about ' : ''}${minutesText(d.minutes)} (${PRECISION_LABELS[d.precision]})`;
}

/** The customer-impact duration in words: as stated, or worked out from the key times. */
export function customerImpactText(ci: CustomerImpact | null): string {
  if (!ci) return NOT_STATED;
  const text = durationText(ci);
  return ci.derived ? `${text}, from the start to mitigation; the record states none` : text;
}

export function nearMissText(nearMiss: boolean): string {
  return nearMiss ? 'yes: caught before it affected anyone' : 'no';
}
