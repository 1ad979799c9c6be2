import { CitationNotice } from '../../runbooks/runbook.types';
import { Field, ID, ObjectType } from '@nestjs/graphql';
import { Actionable, CausalFactor, CausalLink, Incident, TimelineEvent } from '../../incidents/types/incident.types';

/** Payloads of the tracking mutations: the objects each one changed, so client caches update. */

@ObjectType()
export class CreateActionablePayload {
  @Field(() => Actionable) actionable!: Actionable;
  @Field(() => Incident, { description: 'The incident the actionable belongs to.' }) incident!: Incident;
}

@ObjectType()
export class UpdateActionablePayload {
  @Field(() => Actionable) actionable!: Actionable;
  @Field(() => [CitationNotice], { description: 'Runbooks citing what changed, when the change (closing, a new slug or title) may make them wrong; empty otherwise.' }) notices!: CitationNotice[];
}

@ObjectType()
export class TransitionActionablePayload {
  @Field(() => Actionable) actionable!: Actionable;
  @Field(() => [CitationNotice], { description: 'Runbooks citing what changed, when the change (closing, a new slug or title) may make them wrong; empty otherwise.' }) notices!: CitationNotice[];
}

@ObjectType()
export class DeleteActionablePayload {
  @Field(() => ID, { description: 'Global id of the deleted actionable.' }) deletedActionableId!: string;
  @Field(() => Incident, { description: 'The incident it belonged to.' }) incident!: Incident;
}

@ObjectType()
export class CreateIncidentPayload {
  @Field(() => Incident) incident!: Incident;
}

@ObjectType()
export class UpdateIncidentPayload {
  @Field(() => Incident) incident!: Incident;
  @Field(() => [CitationNotice], { description: 'Runbooks citing what changed, when the change (closing, a new slug or title) may make them wrong; empty otherwise.' }) notices!: CitationNotice[];
}

@ObjectType()
export class DeleteIncidentPayload {
  @Field(() => ID, { description: 'Global id of the deleted incident.' }) deletedIncidentId!: string;
}

@ObjectType()
export class UpsertTimelineEventPayload {
  @Field(() => Incident, { description: 'The incident at its new version.' }) incident!: Incident;
  @Field(() => TimelineEvent) timelineEvent!: TimelineEvent;
}

@ObjectType()
export class DeleteTimelineEventPayload {
  @Field(() => Incident, { description: 'The incident at its new version.' }) incident!: Incident;
  @Field(() => ID, { description: 'Global id of the deleted timeline event.' }) deletedTimelineEventId!: string;
}

@ObjectType()
export class UpsertCausalFactorPayload {
  @Field(() => Incident, { description: 'The incident at its new version.' }) incident!: Incident;
  @Field(() => CausalFactor) causalFactor!: CausalFactor;
  @Field(() => [CitationNotice], { description: 'Runbooks citing what changed, when the change (closing, a new slug or title) may make them wrong; empty otherwise.' }) notices!: CitationNotice[];
}

@ObjectType()
export class DeleteCausalFactorPayload {
  @Field(() => Incident, { description: 'The incident at its new version.' }) incident!: Incident;
  @Field(() => ID, { description: 'Global id of the deleted causal factor.' }) deletedCausalFactorId!: string;
}

@ObjectType()
export class UpsertCausalLinkPayload {
  @Field(() => Incident, { description: 'The incident at its new version.' }) incident!: Incident;
  @Field(() => CausalLink) causalLink!: CausalLink;
}

@ObjectType()
export class DeleteCausalLinkPayload {
  @Field(() => Incident, { description: 'The incident at its new version.' }) incident!: Incident;
  @Field(() => ID, { description: 'Global id of the deleted causal link.' }) deletedCausalLinkId!: string;
}
