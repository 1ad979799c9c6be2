import { Field, Float, Int, ObjectType } from '@nestjs/graphql';
import type { AuditAction, AuditEntity } from '@hindsight/tracking';
import { PageInfo } from '../../common/page-info.type';
import { AuditActionEnum, AuditEntityEnum } from '../tracking-enums';
import { Node } from '../../node/node.interface';

@ObjectType({ description: 'One change to one field, recorded in the transaction that made it. Read-only: nothing in the API edits or deletes it.', implements: () => [Node] })
export class AuditEvent extends Node {
  @Field() at!: Date;
  @Field({ description: 'Name of the API token, or cli:<user> for command-line tools.' }) actor!: string;
  @Field(() => AuditEntityEnum) entity!: AuditEntity;
  @Field({ description: 'Key of the changed thing: slug, event, factor or actionable key, from>to:kind for a causal link.' }) entityKey!: string;
  @Field(() => AuditActionEnum) action!: AuditAction;
  @Field(() => String, { nullable: true, description: 'Changed field (status, title, source.url, timeline.order, …); null for create and delete.' }) field!: string | null;
  @Field(() => String, { nullable: true, description: 'Value before: text as is; lists and snapshots as JSON.' }) from!: string | null;
  @Field(() => String, { nullable: true, description: 'Value after: text as is; lists and snapshots as JSON.' }) to!: string | null;
  @Field(() => String, { nullable: true }) note!: string | null;
  @Field(() => Int, { nullable: true, description: 'Version of the incident or actionable after the change.' }) version!: number | null;
}

@ObjectType({ description: 'How follow-up work stands for a set of actionables.' })
export class ActionableCounts {
  @Field(() => Int) total!: number;
  @Field(() => Int) open!: number;
  @Field(() => Int) inProgress!: number;
  @Field(() => Int) done!: number;
  @Field(() => Int) wontDo!: number;
  @Field(() => Int, { description: 'Due date passed while still open or in progress.' }) overdue!: number;
  @Field(() => Float, { nullable: true, description: 'Median days since the items still open or in progress were raised (created here, or for items that came with the postmortem, the incident\'s own end time); null when none are.' })
  medianOpenAgeDays!: number | null;
}

@ObjectType()
export class OrganizationActionableCounts extends ActionableCounts {
  @Field() organization!: string;
}

@ObjectType()
export class PatternActionableCounts extends ActionableCounts {
  @Field({ name: 'patternKey' }) pattern!: string;
  @Field() name!: string;
}

@ObjectType({ description: 'Actionables of published incidents: overall, per organization and per pattern (an incident counts for each of its patterns).' })
export class ActionableStats extends ActionableCounts {
  @Field(() => [OrganizationActionableCounts]) byOrganization!: OrganizationActionableCounts[];
  @Field(() => [PatternActionableCounts]) byPattern!: PatternActionableCounts[];
}

@ObjectType()
export class AuditEventEdge {
  @Field() cursor!: string;
  @Field(() => AuditEvent) node!: AuditEvent;
}

@ObjectType({ description: 'A page of an audit trail. totalCount counts every event of the trail (counted only when selected).' })
export class AuditEventConnection {
  @Field(() => [AuditEventEdge]) edges!: AuditEventEdge[];
  @Field(() => [AuditEvent]) nodes!: AuditEvent[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int) totalCount!: number;
}
