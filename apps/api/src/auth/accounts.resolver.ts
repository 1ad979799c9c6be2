import { Args, Int, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { AccountsService, type Principal } from '@hindsight/tracking';
import { isGlobalIdOf, localIdOf } from '../node/global-id';
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
  constructor(
    private readonly accounts: AccountsService,
    private readonly prisma: PrismaService,
  ) {}

  @RequireRole('admin')
  @Query(() => AccountConnection, { name: 'accounts', description: 'Accounts by name. Pages both ways: first/after or last/before (at most 100; 20 by default). Admin only.' })
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
    const name = await this.nameOf(input.account);
    return { account: await named(input.account, () => this.accounts.update(name, { role: input.role, disabled: input.disabled }, actor)) };
  }

  @RequireRole('admin')
  @Mutation(() => ResetAccountPasswordPayload, { description: 'Sets a new generated password, returned once, and ends the account\'s sessions. Admin only.' })
  async resetAccountPassword(@Args('input') input: ResetAccountPasswordInput, @CurrentPrincipal() actor: Principal) {
    const name = await this.nameOf(input.account);
    return named(input.account, () => this.accounts.resetPassword(name, actor));
  }

  /** The name behind `input.account`, a global id or the name itself. */
  private async nameOf(account: string): Promise<string> {
    if (!/^[A-Za-z0-9_-]+$/.test(account) || !isGlobalIdOf(account, 'Account')) return account;
    const id = localIdOf(account, 'Account', 'input.account');
    const row = /^[0-9a-f-]{36}$/.test(id) ? await this.prisma.account.findUnique({ where: { id }, select: { name: true } }) : null;
    if (!row) throw AppError.notFound('Account', account, 'account');
    return row.name;
  }
}

/** The service names the account it could not find by `name`; the client sent it as `account`. */
async function named<T>(account: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw AppError.notFound('Account', account, 'account');
    throw error;
  }
}

// Counting is a statement of its own, run only when the query selects the field.
@Resolver(() => AccountConnection)
export class AccountConnectionCountsResolver {
  @ResolveField(() => Int)
  totalCount(c: ConnectionCounts): Promise<number> {
    return c.count();
  }
}
