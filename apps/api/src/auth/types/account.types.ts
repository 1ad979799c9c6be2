import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import type { Role } from '@hindsight/tracking';
import { PageInfo } from '../../common/page-info.type';
import { Node } from '../../node/node.interface';
import { RoleEnum } from './api-token.types';

@ObjectType({ description: 'A person who signs in on the pages, as admins see it. Passwords are never shown after they are set.', implements: () => [Node] })
export class Account extends Node {
  @Field({ description: 'The sign-in name; the audit trail names their changes after it.' }) name!: string;
  @Field(() => RoleEnum) role!: Role;
  @Field() createdBy!: string;
  @Field() createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastSignInAt!: Date | null;
  @Field(() => Date, { nullable: true, description: 'Set while the account may not sign in.' }) disabledAt!: Date | null;
}

@ObjectType()
export class AccountEdge {
  @Field(() => Account) node!: Account;
  @Field() cursor!: string;
}

@ObjectType({ description: 'Accounts by name.' })
export class AccountConnection {
  @Field(() => [AccountEdge]) edges!: AccountEdge[];
  @Field(() => [Account]) nodes!: Account[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int) totalCount!: number;
}

@InputType()
export class CreateAccountInput {
  @Field({ description: '1 to 64 letters, digits, dots, dashes, underscores or @.' }) name!: string;
  @Field(() => RoleEnum) role!: Role;
}

@ObjectType()
export class CreateAccountPayload {
  @Field(() => Account) account!: Account;
  @Field({ description: 'A generated first password, shown this once: hand it to the person.' }) password!: string;
}

@InputType()
export class UpdateAccountInput {
  @Field(() => ID, { description: 'Global id or name of the account.' }) account!: string;
  @Field(() => RoleEnum, { nullable: true }) role?: Role | null;
  @Field(() => Boolean, { nullable: true, description: 'true: the account cannot sign in and its sessions end at once.' }) disabled?: boolean | null;
}

@ObjectType()
export class UpdateAccountPayload {
  @Field(() => Account) account!: Account;
}

@InputType()
export class ResetAccountPasswordInput {
  @Field(() => ID, { description: 'Global id or name of the account.' }) account!: string;
}

@ObjectType()
export class ResetAccountPasswordPayload {
  @Field(() => Account) account!: Account;
  @Field({ description: 'The new generated password, shown this once. Every session of the account has ended.' }) password!: string;
}
