import type { FieldProblem, IncidentDocument } from '@hindsight/domain';

export const DOCUMENT_FORMATS = ['markdown', 'wikitext', 'text'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** What a section of a postmortem is about, whatever its heading says literally. */
export const SECTION_KINDS = [
  'summary',
  'impact',
  'timeline',
  'causes',
  'actionables',
  'background',
  'resolution',
  'related',
  'other',
] as const;
export type SectionKind = (typeof SECTION_KINDS)[number];

/** Base URLs used to turn bare tracker references (`T123`, `OPS-1`, `#12`) into links. */
export interface TrackerBases {
  /** Default `https://phabricator.wikimedia.org`. */
  phabricator?: string;
  /** e.g. `https://jira.example.com`; without it Jira references have no URL. */
  jira?: string;
  /** A repository, e.g. `https://github.com/acme/api`; without it `#123` has no URL. */
  github?: string;
  /** A Gerrit server, e.g. `https://gerrit.example.org/r`; without it `gerrit:123` has no URL. */
  gerrit?: string;
}

export interface ParsePostmortemOptions {
  /** Skip detection when the caller knows the format. */
  format?: DocumentFormat;
  /** Where the document came from; wins over a `source` in the front matter. */
  sourceUrl?: string | null;
  /** Documents larger than this (in UTF-8 bytes) are refused. Default 1 MiB. */
  maxBytes?: number;
  /** Year for dates written without one, when the document itself names no year. */
  defaultYear?: number;
  /**
   * Zone to convert times with when the document states none (`UTC`, `Europe/Berlin`, `+02:00`).
   * The report says the zone was assumed.
   */
  assumeTimeZone?: string;
  trackers?: TrackerBases;
  /** Used when neither the front matter nor the title names the organization. */
  organization?: string;
  /** When given, suggested patterns outside this list are dropped. */
  knownPatterns?: readonly string[];
  /** Throw `NO_STRUCTURE` instead of returning a prose-only draft with a warning. */
  requireStructure?: boolean;
}

export interface RecognisedSection {
  heading: string;
  /** 1-based line of the heading. */
  line: number;
  level: number;
  kind: SectionKind;
  /** 0..1: 1 for an exact heading such as "Timeline", lower for looser matches or inherited kinds. */
  confidence: number;
  /**
   * Set when the kind comes from another section: the enclosing one (a `### RESTBase` under
   * `## Action items`), or the one this section continues (an "Alerts" list of tasks right after
   * the action items).
   */
  inheritedFrom?: string;
  inheritance?: 'inside' | 'continues';
}

export const IMPORT_WARNING_CODES = [
  'NO_STRUCTURE',
  'NO_TITLE',
  'NO_TIMELINE',
  'NO_ACTIONABLES',
  'NO_CAUSES',
  'NO_SUMMARY',
  'TIMES_KEPT_LOCAL',
  'ZONE_ASSUMED',
  'UNKNOWN_ZONE',
  'DATE_UNKNOWN',
  'DATE_INFERRED',
  'DATE_ROLLOVER_ASSUMED',
  'YEAR_ASSUMED',
  'MULTIPLE_POSTS',
  'FRONT_MATTER_INVALID',
  'ORGANIZATION_UNKNOWN',
  'LOW_CONFIDENCE_SECTION',
  'PATTERNS_SUGGESTED',
  'DRAFT_INCOMPLETE',
  'EVENTS_FROM_PROSE',
  'ACTIONS_FROM_PROSE',
  'NOT_A_POSTMORTEM',
] as const;
export type ImportWarningCode = (typeof IMPORT_WARNING_CODES)[number];

export interface ImportWarning {
  code: ImportWarningCode;
  message: string;
  line?: number;
}

export interface SourceLine {
  /** 1-based line number in the document (after line endings were normalised). */
  line: number;
  text: string;
}

export interface SuggestedPattern {
  key: string;
  /** The words that suggested it. */
  evidence: string;
  line: number;
}

/** Whether the document reads as a postmortem at all (a release note or a changelog does not). */
export interface PostmortemVerdict {
  isPostmortem: boolean;
  /** 0.5 (on the line) to 1 (far from it). */
  confidence: number;
  /** What the verdict rests on, in words. */
  evidence: string[];
}

/** One thing the importer decided, with how sure it is and where in the source it looked. */
export interface ImportDecision {
  /** `title`, `language`, `postmortem`, `section`, `timeline.<key>`, `actionables.<key>.status`, `keyTimes.started`, … */
  field: string;
  value: string | null;
  /** 0..1. */
  confidence: number;
  /** 1-based source line, or null when the decision rests on the whole document. */
  line: number | null;
  /** The rule that decided, in words. */
  basis: string;
}

export interface ImportReport {
  format: DocumentFormat;
  /** False when the caller named the format. */
  formatDetected: boolean;
  /** sha256 (hex) of the normalised text: the same document imported twice has the same hash. */
  contentHash: string;
  language: string;
  postmortem: PostmortemVerdict;
  timeZone: { zone: string | null; source: 'document' | 'option' | 'none' };
  sections: RecognisedSection[];
  /** `usedLines` counts non-blank lines, so `usedLines + unusedLines.length` is the number of non-blank lines. */
  counts: { lines: number; usedLines: number; timeline: number; actionables: number; causalFactors: number };
  warnings: ImportWarning[];
  /** Every non-blank line that went into neither a field of the draft nor its narrative. */
  unusedLines: SourceLine[];
  /** Patterns proposed from keywords; they are in the draft for a reviewer to confirm or drop. */
  suggestedPatterns: SuggestedPattern[];
  /** What `validateIncidentDocument` says about the draft (empty when it can be saved as is). */
  problems: FieldProblem[];
  /** Every decision behind the draft, in the order of the draft's fields, so a review can show each beside its source line. */
  decisions: ImportDecision[];
}

export interface ImportResult {
  draft: IncidentDocument;
  report: ImportReport;
}
