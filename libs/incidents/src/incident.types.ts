import type {
  ActionableStatus,
  CausalLinkKind,
  FactorRole,
  ReferenceKind,
  TimePrecision,
  TimelineEventKind,
} from '@hindsight/domain';

// Read models returned by the services. Prisma rows satisfy them structurally, so nothing maps
// field by field, yet no Prisma type appears in a service signature.

export interface IncidentRecord {
  id: string;
  slug: string;
  status: 'draft' | 'published';
  title: string;
  organization: string | null;
  components: string[];
  summary: string;
  narrative: string;
  impact: string;
  sourceTitle: string;
  sourceUrl: string | null;
  sourceLanguage: string;
  /** For a source not in English: a summary or key passages in its own language. */
  sourceOriginalText: string | null;
  startedAt: Date | null;
  startedPrecision: TimePrecision;
  detectedAt: Date | null;
  detectedPrecision: TimePrecision;
  mitigatedAt: Date | null;
  mitigatedPrecision: TimePrecision;
  resolvedAt: Date | null;
  resolvedPrecision: TimePrecision;
  /** A level of the configured severity scale; null when the source states none. */
  severity: string | null;
  nearMiss: boolean;
  tags: string[];
  /** Customer-impact duration as stated; `none` precision when not stated (see `customerImpact`). */
  customerImpactMinutes: number | null;
  customerImpactPrecision: TimePrecision;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface TimelineEventRecord {
  id: string;
  incidentId: string;
  key: string;
  position: number;
  at: Date | null;
  precision: TimePrecision;
  asWritten: string | null;
  kind: TimelineEventKind;
  text: string;
}

export interface CausalFactorRecord {
  id: string;
  incidentId: string;
  key: string;
  position: number;
  /** Short name written for the factor; null when there is none (the page then reads the key). */
  title: string | null;
  role: FactorRole;
  component: string | null;
  text: string;
}

export interface CausalLinkRecord {
  id: string;
  incidentId: string;
  fromId: string;
  toId: string;
  kind: CausalLinkKind;
}

export interface ActionableRecord {
  id: string;
  incidentId: string;
  key: string;
  position: number;
  title: string;
  description: string;
  owner: string | null;
  status: ActionableStatus;
  dueDate: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ExternalReferenceRecord {
  id: string;
  actionableId: string;
  position: number;
  kind: ReferenceKind;
  ref: string;
  url: string | null;
}

export interface PatternRecord {
  id: string;
  key: string;
  name: string;
  description: string;
}

export interface Page<T> {
  nodes: T[];
  /** Opaque cursor per node, same order as `nodes`. */
  cursors: string[];
  /** Exact number of rows matching the filter, across pages: one count statement, run on the first call only. */
  count(): Promise<number>;
  /** The planner's estimate of that number, from table statistics: no scan, may be off. */
  estimate(): Promise<number>;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}
