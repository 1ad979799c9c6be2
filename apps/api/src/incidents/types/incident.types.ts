import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import type {
  ActionableStatus,
  CausalLinkKind,
  FactorRole,
  ReferenceKind,
  TimePrecision,
  TimelineEventKind,
} from '@hindsight/domain';
import {
  ActionableStatusEnum,
  CausalLinkKindEnum,
  FactorRoleEnum,
  IncidentStatusEnum,
  ReferenceKindEnum,
  TimePrecisionEnum,
  TimelineEventKindEnum,
} from '../../common/graphql-enums';
import { CalendarDateScalar } from '../../common/calendar-date.scalar';
import { PageInfo } from '../../common/page-info.type';
import { Node } from '../../node/node.interface';

@ObjectType({ description: 'A key moment of an incident, as precisely as the source gave it; the field holding it is null when the source gives no time.' })
export class KeyTime {
  @Field(() => Date, { description: 'For imprecise times the start of the interval.' }) at!: Date;
  @Field(() => TimePrecisionEnum) precision!: TimePrecision;
}

@ObjectType({ description: 'Where the postmortem came from.' })
export class IncidentSource {
  @Field() title!: string;
  @Field(() => String, { nullable: true }) url!: string | null;
  @Field({ description: 'BCP 47 tag of the original document (the record itself is in English).' }) language!: string;
  @Field(() => String, { nullable: true, description: "For a source not in English: a summary or key passages in the source's language; searched too." })
  originalText!: string | null;
}

@ObjectType({ description: 'A failure pattern of the shared taxonomy.', implements: () => [Node] })
export class Pattern extends Node {
  @Field() key!: string;
  @Field() name!: string;
  @Field() description!: string;
}

@ObjectType({ implements: () => [Node] })
export class TimelineEvent extends Node {
  @Field({ description: 'Stable key; page anchors are #timeline-<key>.' }) key!: string;
  @Field(() => Int) position!: number;
  @Field(() => Date, { nullable: true, description: 'Parsed instant (UTC); for imprecise times the start of the interval.' }) at!: Date | null;
  @Field(() => TimePrecisionEnum) precision!: TimePrecision;
  @Field(() => String, { nullable: true, description: 'The time exactly as the source wrote it.' }) asWritten!: string | null;
  @Field(() => TimelineEventKindEnum) kind!: TimelineEventKind;
  @Field() text!: string;
}

@ObjectType({ implements: () => [Node] })
export class CausalFactor extends Node {
  @Field({ description: 'Stable key; page anchors are #factor-<key>.' }) key!: string;
  @Field(() => String, { nullable: true, description: 'A short title written for people; null when none was written (the pages then name the factor after its key).' }) title!: string | null;
  @Field(() => FactorRoleEnum) role!: FactorRole;
  @Field(() => String, { nullable: true, description: 'Null when the source names no component.' }) component!: string | null;
  @Field() text!: string;
}

@ObjectType({ description: 'A directed edge of the causal graph. Cycles are allowed: feedback loops are cycles.', implements: () => [Node] })
export class CausalLink extends Node {
  @Field(() => CausalLinkKindEnum) kind!: CausalLinkKind;
}

@ObjectType()
export class ExternalReference {
  @Field(() => ReferenceKindEnum) kind!: ReferenceKind;
  @Field({ description: 'As written: T134456, OPS-123, a URL.' }) ref!: string;
  @Field(() => String, { nullable: true }) url!: string | null;
}

@ObjectType({ description: 'Follow-up work from an incident.', implements: () => [Node] })
export class Actionable extends Node {
  @Field({ description: 'Stable key; page anchors are #actionable-<key>.' }) key!: string;
  @Field() title!: string;
  @Field() description!: string;
  @Field(() => String, { nullable: true, description: 'Free-text owner as imported or written before owners were accounts and teams; null when an account or team owns it (see ownedBy).' }) owner!: string | null;
  @Field(() => ActionableStatusEnum) status!: ActionableStatus;
  @Field(() => Int) version!: number;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
}

@ObjectType({ description: 'A postmortem as structured knowledge.', implements: () => [Node] })
export class Incident extends Node {
  @Field({ description: 'Stable, unique, used in links.' }) slug!: string;
  @Field(() => IncidentStatusEnum) status!: 'draft' | 'published';
  @Field() title!: string;
  @Field(() => String, { nullable: true, description: 'Null when the source does not say; an import report flags it.' }) organization!: string | null;
  @Field(() => [String]) components!: string[];
  @Field() summary!: string;
  @Field({ description: 'Markdown.' }) narrative!: string;
  @Field() impact!: string;
  @Field(() => String, { nullable: true, description: 'A level of the configured severity scale (`severityLevels`, most severe first); null when the source states none.' })
  severity!: string | null;
  @Field({ description: 'Caught before it affected anyone.' }) nearMiss!: boolean;
  @Field(() => [String], { description: 'Free labels, normalised: lower case, words joined by dashes, sorted.' }) tags!: string[];
  @Field(() => Int, { description: 'Incremented by every change; writes must name the version they read.' }) version!: number;
  @Field() createdAt!: Date;
  @Field() updatedAt!: Date;
}

@ObjectType()
export class IncidentEdge {
  @Field() cursor!: string;
  @Field(() => Incident) node!: Incident;
}

@ObjectType({ description: 'A searched word no incident contains, and the known words it also matched.' })
export class SearchWidening {
  @Field() word!: string;
  @Field(() => [String]) alternatives!: string[];
}

@ObjectType()
export class IncidentConnection {
  @Field(() => [IncidentEdge]) edges!: IncidentEdge[];
  @Field(() => [Incident]) nodes!: Incident[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int, { description: 'All incidents matching the filter, across pages: exact, counted when selected (a scan of the matches).' }) totalCount!: number;
  @Field(() => Int, { description: "Estimate of totalCount from the database's statistics: no scan, may be off by a few percent (more for text searches)." })
  totalCountEstimate!: number;
  @Field(() => [SearchWidening], { description: 'For a text search: words no incident contains, widened to close known words (typos).' })
  searchWidened!: SearchWidening[];
}

@ObjectType()
export class ActionableEdge {
  @Field() cursor!: string;
  @Field(() => Actionable) node!: Actionable;
}

@ObjectType()
export class ActionableConnection {
  @Field(() => [ActionableEdge]) edges!: ActionableEdge[];
  @Field(() => [Actionable]) nodes!: Actionable[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int, { description: 'All actionables matching the filter, across pages: exact, counted when selected (a scan of the matches).' }) totalCount!: number;
  @Field(() => Int, { description: "Estimate of totalCount from the database's statistics: no scan, may be off." })
  totalCountEstimate!: number;
}

@InputType()
export class IncidentFilterInput {
  @Field(() => [String], { nullable: true, description: 'Incidents showing any of these pattern keys.' }) patterns?: string[] | null;
  @Field(() => String, { nullable: true, description: 'Exact organization, case-insensitive.' }) organization?: string | null;
  @Field(() => String, { nullable: true, description: 'A component the incident involved, case-insensitive.' }) component?: string | null;
  @Field(() => String, { nullable: true, description: 'Words to find anywhere in the record; case and accents are ignored.' }) text?: string | null;
  @Field(() => Date, { nullable: true, description: 'Started at or after this instant.' }) startedFrom?: Date | null;
  @Field(() => Date, { nullable: true, description: 'Started before this instant.' }) startedBefore?: Date | null;
  @Field(() => [String], { nullable: true, description: 'Incidents at any of these severity levels (see `severityLevels`).' }) severity?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: 'true: near misses only; false: incidents that affected someone.' }) nearMiss?: boolean | null;
  @Field(() => [String], { nullable: true, description: 'Incidents carrying every one of these tags (compared normalised).' }) tags?: string[] | null;
  @Field(() => [ActionableStatusEnum], { nullable: true, description: 'Incidents with at least one follow-up in any of these statuses.' })
  actionableStatus?: ActionableStatus[] | null;
}

@InputType()
export class ActionableFilterInput {
  @Field(() => [ActionableStatusEnum], { nullable: true }) status?: ActionableStatus[] | null;
  @Field(() => String, { nullable: true, description: "Case-insensitive part of the owner's name: the account's, the team's, or the free text." }) owner?: string | null;
  @Field(() => Boolean, { nullable: true, description: "true: owned by the signed-in person or one of their teams (a session only: a token belongs to no account)." }) assignedToMe?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Due date passed while still open or in progress.' }) overdue?: boolean | null;
  @Field(() => CalendarDateScalar, { nullable: true, description: 'Due on a day before this one.' }) dueBefore?: string | null;
  @Field(() => String, { nullable: true, description: 'A pattern key of the incident.' }) pattern?: string | null;
  @Field(() => String, { nullable: true, description: 'The slug of the incident.' }) incident?: string | null;
  @Field(() => Boolean, { nullable: true }) hasExternalRef?: boolean | null;
}

@ObjectType()
export class PatternEdge {
  @Field() cursor!: string;
  @Field(() => Pattern) node!: Pattern;
}

@ObjectType()
export class PatternConnection {
  @Field(() => [PatternEdge]) edges!: PatternEdge[];
  @Field(() => [Pattern]) nodes!: Pattern[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int) totalCount!: number;
}
