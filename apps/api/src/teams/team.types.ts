import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { PageInfo } from '../common/page-info.type';
import { Node } from '../node/node.interface';

export const OwnerKindEnum = { ACCOUNT: 'account', TEAM: 'team', TEXT: 'text' } as const;
export type OwnerKind = (typeof OwnerKindEnum)[keyof typeof OwnerKindEnum];
registerEnumType(OwnerKindEnum, { name: 'OwnerKind', description: 'ACCOUNT and TEAM are owners of this system; TEXT is a free-text owner, as imported or written before.' });

@ObjectType({ description: 'A team of accounts that can own follow-ups. Admins manage teams.', implements: () => [Node] })
export class Team extends Node {
  @Field() name!: string;
  @Field() createdBy!: string;
  @Field() createdAt!: Date;
  @Field(() => Int, { description: 'Goes up with every membership change.' }) version!: number;
}

@ObjectType({ description: 'A member of a team: an account, by its sign-in name.' })
export class TeamMember {
  @Field() name!: string;
  @Field() addedAt!: Date;
}

@ObjectType()
export class TeamMemberEdge {
  @Field(() => TeamMember) node!: TeamMember;
  @Field() cursor!: string;
}

@ObjectType({ description: 'Members of a team by name.' })
export class TeamMemberConnection {
  @Field(() => [TeamMemberEdge]) edges!: TeamMemberEdge[];
  @Field(() => [TeamMember]) nodes!: TeamMember[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int) totalCount!: number;
}

@ObjectType()
export class TeamEdge {
  @Field(() => Team) node!: Team;
  @Field() cursor!: string;
}

@ObjectType({ description: 'Teams by name.' })
export class TeamConnection {
  @Field(() => [TeamEdge]) edges!: TeamEdge[];
  @Field(() => [Team]) nodes!: Team[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int) totalCount!: number;
}

@ObjectType({ description: "Who owns a follow-up: an account or a team of this system, or free text (imported or older records)." })
export class ActionableOwner {
  @Field(() => OwnerKindEnum) kind!: OwnerKind;
  @Field({ description: "The account's sign-in name, the team's name, or the text as written." }) name!: string;
  @Field(() => ID, { nullable: true, description: 'Global id of the Team when a team owns it; null otherwise (account ids are for admins).' }) teamId!: string | null;
}

@InputType()
export class CreateTeamInput {
  @Field({ description: '1 to 64 letters, digits, spaces, dots, dashes, underscores or @; unique regardless of case.' }) name!: string;
}

@ObjectType()
export class CreateTeamPayload {
  @Field(() => Team) team!: Team;
}

@InputType()
export class DeleteTeamInput {
  @Field({ description: "The team's name (any case)." }) team!: string;
}

@ObjectType()
export class DeleteTeamPayload {
  @Field(() => ID, { description: 'Global id of the deleted team. Follow-ups it owned are left without an owner.' }) deletedTeamId!: string;
}

@InputType({ isAbstract: true })
abstract class TeamMemberFields {
  @Field({ description: "The team's name (any case)." }) team!: string;
  @Field({ description: "The account's sign-in name." }) account!: string;
}

@InputType()
export class AddTeamMemberInput extends TeamMemberFields {}

@InputType()
export class RemoveTeamMemberInput extends TeamMemberFields {}

@ObjectType({ isAbstract: true })
abstract class TeamMembershipFields {
  @Field(() => Team, { description: 'The team at its new version (unchanged when the account already was, or was not, a member).' }) team!: Team;
}

@ObjectType()
export class AddTeamMemberPayload extends TeamMembershipFields {}

@ObjectType()
export class RemoveTeamMemberPayload extends TeamMembershipFields {}
