import { Field, ID, InputType, Int } from '@nestjs/graphql';
import type { ActionableStatus, CausalLinkKind, FactorRole, TimePrecision, TimelineEventKind } from '@hindsight/domain';
import type { ActionablePriority } from '@hindsight/tracking';
import {
  ActionableStatusEnum,
  CausalLinkKindEnum,
  FactorRoleEnum,
  IncidentStatusEnum,
  TimePrecisionEnum,
  TimelineEventKindEnum,
} from '../../common/graphql-enums';
import { CalendarDateScalar } from '../../common/calendar-date.scalar';
import { ActionablePriorityEnum } from '../tracking-enums';

export const POSITION_DESCRIPTION = 'Index in the list (0 = first); omitted keeps an existing item in place and appends a new one.';
const REFERENCES = 'Tracker references as people write them: T134456, OPS-123, a GitHub issue or pull request URL, owner/repo#12, any http(s) URL.';

@InputType({ description: 'Fields of an actionable to change; omitted fields stay as they are, null clears a nullable one.' })
export class ActionablePatchInput {
  @Field(() => String, { nullable: true, description: 'At most 300 characters.' }) title?: string;
  @Field(() => String, { nullable: true, description: 'At most 20000 characters.' }) description?: string;
  @Field(() => String, { nullable: true, description: 'Free-text owner, for imported or older records; setting it clears an account or team owner. Set one of owner, ownerAccount, ownerTeam.' }) owner?: string | null;
  @Field(() => String, { nullable: true, description: 'Sign-in name of the account that owns it (clears the other owners).' }) ownerAccount?: string | null;
  @Field(() => String, { nullable: true, description: 'Name of the team that owns it (clears the other owners).' }) ownerTeam?: string | null;
  @Field(() => CalendarDateScalar, { nullable: true, description: 'Calendar date YYYY-MM-DD.' }) dueDate?: string | null;
  @Field(() => ActionablePriorityEnum, { nullable: true }) priority?: ActionablePriority | null;
  @Field(() => [String], { nullable: true, description: 'Keys of the causal factors (of the same incident) this work addresses; replaces the list.' }) addresses?: string[];
  @Field(() => [String], { nullable: true, description: `${REFERENCES} Replaces the list.` }) references?: string[];
}

@InputType()
export class CreateActionableInput {
  @Field({ description: 'Slug of the incident the work follows from.' }) incident!: string;
  @Field(() => String, { nullable: true, description: 'Stable key, unique in the incident; derived from the title when omitted.' }) key?: string | null;
  @Field({ description: 'At most 300 characters.' }) title!: string;
  @Field(() => String, { nullable: true, description: 'At most 20000 characters.' }) description?: string;
  @Field(() => String, { nullable: true, description: 'Free-text owner, for imported or older records; setting it clears an account or team owner. Set one of owner, ownerAccount, ownerTeam.' }) owner?: string | null;
  @Field(() => String, { nullable: true, description: 'Sign-in name of the account that owns it (clears the other owners).' }) ownerAccount?: string | null;
  @Field(() => String, { nullable: true, description: 'Name of the team that owns it (clears the other owners).' }) ownerTeam?: string | null;
  @Field(() => CalendarDateScalar, { nullable: true, description: 'Calendar date YYYY-MM-DD.' }) dueDate?: string | null;
  @Field(() => ActionablePriorityEnum, { nullable: true }) priority?: ActionablePriority | null;
  @Field(() => [String], { nullable: true, description: 'Keys of the causal factors (of the same incident) this work addresses.' }) addresses?: string[];
  @Field(() => [String], { nullable: true, description: REFERENCES }) references?: string[];
  @Field(() => String, { nullable: true, description: 'Why; kept in the audit trail.' }) note?: string | null;
}

@InputType()
export class IncidentSourceInput {
  @Field() title!: string;
  @Field(() => String, { nullable: true }) url?: string | null;
  @Field({ description: 'BCP 47 tag of the original document: en, vi, …' }) language!: string;
}

@InputType()
export class IncidentSourcePatchInput {
  @Field(() => String, { nullable: true }) title?: string;
  @Field(() => String, { nullable: true }) url?: string | null;
  @Field(() => String, { nullable: true }) language?: string;
}

@InputType()
export class KeyTimeInput {
  @Field(() => Date, { nullable: true, description: 'For imprecise times the start of the interval; null (with precision NONE) when the source gives no time.' }) at!: Date | null;
  @Field(() => TimePrecisionEnum) precision!: TimePrecision;
}

@InputType({ description: 'Omitted key times stay as they are; null clears one.' })
export class KeyTimesInput {
  @Field(() => KeyTimeInput, { nullable: true }) started?: KeyTimeInput | null;
  @Field(() => KeyTimeInput, { nullable: true }) detected?: KeyTimeInput | null;
  @Field(() => KeyTimeInput, { nullable: true }) mitigated?: KeyTimeInput | null;
  @Field(() => KeyTimeInput, { nullable: true }) resolved?: KeyTimeInput | null;
}

@InputType({ description: 'How long customers were affected, as the source states it.' })
export class CustomerImpactInput {
  @Field(() => Int, { description: 'Whole minutes, 0 to 525600.' }) minutes!: number;
  @Field(() => TimePrecisionEnum, { description: 'How precisely the source states it (not NONE): MINUTE for "6 minutes", APPROXIMATE for "about an hour".' })
  precision!: TimePrecision;
}

const SEVERITY = 'A level of the configured severity scale (`severityLevels`); null when the source states none.';
const TAGS = 'Free labels; stored normalised (lower case, words joined by dashes, distinct, sorted), at most 30.';

@InputType()
export class TimelineEventInput {
  @Field({ description: 'Stable key, unique in the incident: lower-case letters, digits and dashes.' }) key!: string;
  @Field(() => String, { nullable: true, description: 'The time exactly as the source wrote it.' }) asWritten?: string | null;
  @Field(() => Date, { nullable: true, description: 'The start of the interval for imprecise times.' }) at?: Date | null;
  @Field(() => TimePrecisionEnum, { nullable: true, description: 'Required with `at`; NONE without.' }) precision?: TimePrecision | null;
  @Field(() => TimelineEventKindEnum) kind!: TimelineEventKind;
  @Field() text!: string;
}

@InputType()
export class CausalFactorInput {
  @Field({ description: 'Stable key, unique in the incident.' }) key!: string;
  @Field(() => String, { nullable: true, description: 'A short title for people (at most 200 characters). Omitted: the stored title is kept; null: removed.' }) title?: string | null;
  @Field(() => FactorRoleEnum) role!: FactorRole;
  @Field(() => String, { nullable: true, description: 'Null when the source names no component.' }) component!: string | null;
  @Field() text!: string;
}

@InputType({ description: 'A causal link, identified by its two factor keys and its kind.' })
export class CausalLinkInput {
  @Field() from!: string;
  @Field() to!: string;
  @Field(() => CausalLinkKindEnum) kind!: CausalLinkKind;
}

@InputType({ description: 'An actionable as a postmortem states it, for creating an incident in one call.' })
export class IncidentActionableInput {
  @Field() key!: string;
  @Field() title!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, { nullable: true }) owner?: string | null;
  @Field(() => ActionableStatusEnum, { nullable: true, description: 'Defaults to OPEN.' }) status?: ActionableStatus | null;
  @Field(() => CalendarDateScalar, { nullable: true }) dueDate?: string | null;
  @Field(() => [String], { nullable: true, description: REFERENCES }) references?: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Keys of causal factors in this input.' }) addresses?: string[] | null;
}

@InputType({ description: 'A whole incident, as the importer drafts it or a person enters it.' })
export class IncidentInput {
  @Field({ description: 'Lower-case words joined by dashes; unique, and not a former slug of another incident.' }) slug!: string;
  @Field() title!: string;
  @Field() organization!: string;
  @Field(() => [String], { nullable: true }) components?: string[] | null;
  @Field() summary!: string;
  @Field(() => String, { nullable: true, description: 'Markdown.' }) narrative?: string | null;
  @Field(() => String, { nullable: true }) impact?: string | null;
  @Field(() => [String], { nullable: true, description: 'Pattern keys of the shared taxonomy.' }) patterns?: string[] | null;
  @Field(() => IncidentSourceInput) source!: IncidentSourceInput;
  @Field(() => KeyTimesInput, { nullable: true }) keyTimes?: KeyTimesInput | null;
  @Field(() => [TimelineEventInput], { nullable: true }) timeline?: TimelineEventInput[] | null;
  @Field(() => [CausalFactorInput], { nullable: true }) causalFactors?: CausalFactorInput[] | null;
  @Field(() => [CausalLinkInput], { nullable: true }) causalLinks?: CausalLinkInput[] | null;
  @Field(() => [IncidentActionableInput], { nullable: true }) actionables?: IncidentActionableInput[] | null;
  @Field(() => String, { nullable: true, description: SEVERITY }) severity?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Caught before it affected anyone. Defaults to false.' }) nearMiss?: boolean | null;
  @Field(() => [String], { nullable: true, description: TAGS }) tags?: string[] | null;
  @Field(() => CustomerImpactInput, { nullable: true }) customerImpact?: CustomerImpactInput | null;
}

@InputType({ description: 'Fields of an incident to change; omitted fields stay as they are.' })
export class IncidentPatchInput {
  @Field(() => String, { nullable: true, description: 'Renaming keeps the old slug as an alias, so old links keep working.' }) slug?: string;
  @Field(() => IncidentStatusEnum, { nullable: true, description: 'PUBLISHED makes a draft visible to readers.' }) status?: 'draft' | 'published';
  @Field(() => String, { nullable: true }) title?: string;
  @Field(() => String, { nullable: true }) organization?: string;
  @Field(() => [String], { nullable: true }) components?: string[];
  @Field(() => String, { nullable: true }) summary?: string;
  @Field(() => String, { nullable: true }) narrative?: string;
  @Field(() => String, { nullable: true }) impact?: string;
  @Field(() => [String], { nullable: true }) patterns?: string[];
  @Field(() => IncidentSourcePatchInput, { nullable: true }) source?: IncidentSourcePatchInput;
  @Field(() => KeyTimesInput, { nullable: true }) keyTimes?: KeyTimesInput;
  @Field(() => String, { nullable: true, description: `${SEVERITY} Null clears it.` }) severity?: string | null;
  @Field(() => Boolean, { nullable: true }) nearMiss?: boolean;
  @Field(() => [String], { nullable: true, description: `${TAGS} Replaces the list.` }) tags?: string[];
  @Field(() => CustomerImpactInput, { nullable: true, description: 'Null clears it.' }) customerImpact?: CustomerImpactInput | null;
}


const VERSION_DESCRIPTION = 'The version you last read; a stale one is CONFLICT and changes nothing.';
const INCIDENT_VERSION_DESCRIPTION = "The incident's version you last read; a stale one is CONFLICT and changes nothing.";
const NOTE_DESCRIPTION = 'Why; kept in the audit trail.';

@InputType()
export class UpdateActionableInput {
  @Field(() => ID, { description: 'Global id of the actionable.' }) id!: string;
  @Field(() => Int, { description: VERSION_DESCRIPTION }) expectedVersion!: number;
  @Field(() => ActionablePatchInput) patch!: ActionablePatchInput;
  @Field(() => String, { nullable: true, description: NOTE_DESCRIPTION }) note?: string | null;
}

@InputType()
export class TransitionActionableInput {
  @Field(() => ID, { description: 'Global id of the actionable.' }) id!: string;
  @Field(() => ActionableStatusEnum) to!: ActionableStatus;
  @Field(() => Int, { description: VERSION_DESCRIPTION }) expectedVersion!: number;
  @Field(() => String, { nullable: true, description: `${NOTE_DESCRIPTION} Required for WONT_DO.` }) note?: string | null;
}

@InputType()
export class DeleteActionableInput {
  @Field(() => ID, { description: 'Global id of the actionable.' }) id!: string;
  @Field(() => Int, { description: VERSION_DESCRIPTION }) expectedVersion!: number;
  @Field(() => String, { nullable: true, description: NOTE_DESCRIPTION }) note?: string | null;
}

@InputType()
export class CreateIncidentInput extends IncidentInput {
  @Field(() => IncidentStatusEnum, { defaultValue: 'draft' }) status!: 'draft' | 'published';
  @Field(() => String, { nullable: true, description: NOTE_DESCRIPTION }) note?: string | null;
}

/** What every incident-level write names: the incident, the version read, and why. */
@InputType({ isAbstract: true })
class IncidentWriteInput {
  @Field({ description: 'Slug (or a former slug) of the incident.' }) slug!: string;
  @Field(() => Int, { description: INCIDENT_VERSION_DESCRIPTION }) expectedVersion!: number;
  @Field(() => String, { nullable: true, description: NOTE_DESCRIPTION }) note?: string | null;
}

@InputType()
export class UpdateIncidentInput extends IncidentWriteInput {
  @Field(() => IncidentPatchInput) patch!: IncidentPatchInput;
}

@InputType()
export class DeleteIncidentInput extends IncidentWriteInput {}

@InputType()
export class UpsertTimelineEventInput extends IncidentWriteInput {
  @Field(() => TimelineEventInput) event!: TimelineEventInput;
  @Field(() => Int, { nullable: true, description: POSITION_DESCRIPTION }) position?: number | null;
}

@InputType()
export class DeleteTimelineEventInput extends IncidentWriteInput {
  @Field({ description: 'Key of the timeline event.' }) key!: string;
}

@InputType()
export class UpsertCausalFactorInput extends IncidentWriteInput {
  @Field(() => CausalFactorInput) factor!: CausalFactorInput;
  @Field(() => Int, { nullable: true, description: POSITION_DESCRIPTION }) position?: number | null;
}

@InputType()
export class DeleteCausalFactorInput extends IncidentWriteInput {
  @Field({ description: 'Key of the causal factor.' }) key!: string;
}

@InputType({ isAbstract: true })
class CausalLinkWriteInput extends IncidentWriteInput {
  @Field(() => CausalLinkInput) link!: CausalLinkInput;
}

@InputType()
export class UpsertCausalLinkInput extends CausalLinkWriteInput {}

@InputType()
export class DeleteCausalLinkInput extends CausalLinkWriteInput {}
