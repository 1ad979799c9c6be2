import { Field, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { ROLES, type Role } from '@hindsight/tracking';
import { PageInfo } from '../../common/page-info.type';
import { Node } from '../../node/node.interface';

export const RoleEnum = Object.fromEntries(ROLES.map((r) => [r.toUpperCase(), r])) as Record<string, Role>;

registerEnumType(RoleEnum, {
  name: 'Role',
  description: 'VIEWER reads; EDITOR also writes incidents and actionables; ADMIN also revokes tokens and deletes.',
});

@ObjectType({ description: 'An API token as admins see it. The token itself is shown once, by the CLI that creates it.', implements: () => [Node] })
export class ApiToken extends Node {
  @Field({ description: 'Who or what holds it; the audit trail names changes after it.' }) name!: string;
  @Field(() => RoleEnum) role!: Role;
  @Field({ description: 'The first characters of the token, to tell tokens apart.' }) prefix!: string;
  @Field() createdBy!: string;
  @Field() createdAt!: Date;
  @Field(() => Date, { nullable: true, description: 'Recorded at most once a minute.' }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
}

@InputType()
export class RevokeApiTokenInput {
  @Field(() => ID, { description: 'Global id or name of the token.' }) token!: string;
  @Field(() => String, { nullable: true, description: 'Why; kept in the audit trail.' }) note?: string | null;
}

@ObjectType()
export class RevokeApiTokenPayload {
  @Field(() => ApiToken) apiToken!: ApiToken;
}

@ObjectType()
export class ApiTokenEdge {
  @Field() cursor!: string;
  @Field(() => ApiToken) node!: ApiToken;
}

@ObjectType()
export class ApiTokenConnection {
  @Field(() => [ApiTokenEdge]) edges!: ApiTokenEdge[];
  @Field(() => [ApiToken]) nodes!: ApiToken[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int) totalCount!: number;
}
