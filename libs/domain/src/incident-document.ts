/**
 * The shape of an incident as data: what `seeds/incidents/<slug>.json` holds, what the importer
 * produces as a draft, and what the seeder writes to the database. Plain types only, so every
 * layer (seed files, importer, services, tests) speaks the same vocabulary.
 */

export const TIME_PRECISIONS = ['second', 'minute', 'ten_minutes', 'hour', 'day', 'approximate', 'none'] as const;
export type TimePrecision = (typeof TIME_PRECISIONS)[number];

export const TIMELINE_EVENT_KINDS = ['trigger', 'detection', 'escalation', 'mitigation', 'recovery', 'observation'] as const;
export type TimelineEventKind = (typeof TIMELINE_EVENT_KINDS)[number];

export const FACTOR_ROLES = ['trigger', 'condition', 'amplifier', 'latent', 'mitigating'] as const;
export type FactorRole = (typeof FACTOR_ROLES)[number];

export const CAUSAL_LINK_KINDS = ['causes', 'amplifies', 'enables'] as const;
export type CausalLinkKind = (typeof CAUSAL_LINK_KINDS)[number];

export const ACTIONABLE_STATUSES = ['open', 'in_progress', 'done', 'wont_do'] as const;
export type ActionableStatus = (typeof ACTIONABLE_STATUSES)[number];

export const REFERENCE_KINDS = ['phabricator', 'github_pull', 'github_issue', 'jira', 'url', 'gerrit', 'gitlab_issue', 'gitlab_merge_request', 'linear'] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

/** A point in time as the source gave it. `at` is ISO 8601 UTC (or null when the source gives none). */
export interface TimeValue {
  at: string | null;
  precision: TimePrecision;
}

export interface TimelineEventDocument {
  /** Stable key, unique within the incident; anchors and runbook links are built from it. */
  key: string;
  /** The time exactly as the source wrote it (`02:3X`, `(ca.) 03:20`, `10:23:14`), or null. */
  asWritten: string | null;
  /** Parsed instant, ISO 8601 in UTC; for imprecise times the start of the interval. */
  at: string | null;
  precision: TimePrecision;
  kind: TimelineEventKind;
  text: string;
}

export interface CausalFactorDocument {
  key: string;
  /** A short name for the factor ("HAProxy capped at 40,000 sessions"); absent or null when none was written. */
  title?: string | null;
  role: FactorRole;
  component: string | null;
  text: string;
}

export interface CausalLinkDocument {
  from: string;
  to: string;
  kind: CausalLinkKind;
}

export interface ExternalReferenceDocument {
  kind: ReferenceKind;
  /** As written in the source: `T134456`, a pull request URL, `OPS-123`. */
  ref: string;
  /** Canonical URL, when one is known. */
  url: string | null;
}

export interface ActionableDocument {
  key: string;
  title: string;
  description: string;
  owner: string | null;
  status: ActionableStatus;
  /** Calendar date, `YYYY-MM-DD`. */
  dueDate: string | null;
  references: ExternalReferenceDocument[];
  /** Keys of the causal factors this actionable addresses. */
  addresses: string[];
}

export interface IncidentSourceDocument {
  title: string;
  url: string | null;
  /** BCP 47 language tag of the original document (`en`, `vi`). */
  language: string;
  /**
   * For a source not in English: a summary or key passages in the source's own language, kept
   * beside the English text so the incident is found by the source's words. Null or absent
   * for English sources.
   */
  originalText?: string | null;
}

export interface IncidentDocument {
  slug: string;
  title: string;
  organization: string | null;
  components: string[];
  summary: string;
  /** Markdown. In seed files it lives beside the JSON as `<slug>.md`. */
  narrative: string;
  impact: string;
  /** Keys of patterns from the shared taxonomy (`seeds/patterns.json`). */
  patterns: string[];
  source: IncidentSourceDocument;
  keyTimes: {
    started: TimeValue | null;
    detected: TimeValue | null;
    mitigated: TimeValue | null;
    resolved: TimeValue | null;
  };
  timeline: TimelineEventDocument[];
  causalFactors: CausalFactorDocument[];
  causalLinks: CausalLinkDocument[];
  actionables: ActionableDocument[];
  /**
   * A level of the installation's severity scale (`INCIDENT_SEVERITY_LEVELS`, most severe
   * first); null or absent when the source states none.
   */
  severity?: string | null;
  /** True when the failure was caught before it affected anyone; absent means false. */
  nearMiss?: boolean;
  /** Free labels, normalised by `normalizeTags` (lower case, words joined by dashes, distinct, sorted). */
  tags?: string[];
  /**
   * How long customers were affected, as the source states it (6 minutes to the minute, "about
   * an hour" approximate); null or absent when it does not say.
   */
  customerImpact?: CustomerImpactDocument | null;
}

export interface CustomerImpactDocument {
  minutes: number;
  /** How precisely the source states it; never `none`. */
  precision: TimePrecision;
}

export interface PatternDocument {
  key: string;
  name: string;
  description: string;
}
