import { Args, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { AccountsService, type Principal } from '@hindsight/tracking';
import { toConnection, type ConnectionCounts } from '../common/page-info.type';
import { CurrentPrincipal } from './current-principal.decorator';
import { RequireRole } from './roles.decorator';
import {
  Account,
  AccountConnection,
  CreateAccountInput,
  CreateAccountPayload,
  ResetAccountPasswordInput,
  ResetAccountPasswordPayload,
  UpdateAccountInput,
  UpdateAccountPayload,
} from './types/account.types';

/** People's accounts over the API, for admins. The CLI (`npm run account`) does the same. */
@Resolver(() => Account)
export class AccountsResolver {
  constructor(private readonly accounts: AccountsService) {}

  @RequireRole('admin')
  @Query(() => AccountConnection, { description: 'Accounts by name. Pages both ways: first/after or last/before (at most 100; 20 by default). Admin only.' })
  async accountList(
    @Args('first', { type: () => Int, nullable: true, description: 'At most 100; 20 by default.' }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true, description: 'At most 100.' }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ) {
    return toConnection(await this.accounts.page({ first, after, last, before }));
  }

  @RequireRole('admin')
  @Mutation(() => CreateAccountPayload, { description: 'Creates an account with a generated password, returned once. Admin only.' })
  createAccount(@Args('input') input: CreateAccountInput, @CurrentPrincipal() actor: Principal) {
    return this.accounts.create(input.name, input.role, actor);
  }

  @RequireRole('admin')
  @Mutation(() => UpdateAccountPayload, { description: 'Changes an account\'s role, or disables or enables it. Admin only.' })
  async updateAccount(@Args('input') input: UpdateAccountInput, @CurrentPrincipal() actor: Principal) {
    return { account: await this.accounts.update(input.name, { role: input.role, disabled: input.disabled }, actor) };
  }

  @RequireRole('admin')
  @Mutation(() => ResetAccountPasswordPayload, { description: 'Sets a new generated password, returned once, and ends the account\'s sessions. Admin only.' })
  resetAccountPassword(@Args('input') input: ResetAccountPasswordInput, @CurrentPrincipal() actor: Principal) {
    return this.accounts.resetPassword(input.name, actor);
  }
}

// Counting is a statement of its own, run only when the query selects the field.
@Resolver(() => AccountConnection)
export class AccountConnectionCountsResolver {
  @ResolveField(() => Int)
  totalCount(@Parent() c: ConnectionCounts): Promise<number> {
    return c.count();
  }
}
