import { Args, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ApiTokensService, type Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from './current-principal.decorator';
import { RequireRole } from './roles.decorator';
import { isGlobalIdOf, localIdOf } from '../node/global-id';
import { ApiTokenConnection, RevokeApiTokenInput, RevokeApiTokenPayload } from './types/api-token.types';
import { listConnection } from '../common/list-connection';

/** Token administration over the API. Creating tokens is CLI-only, so a token is never sent back over HTTP. */
@Resolver()
export class ApiTokensResolver {
  constructor(private readonly tokens: ApiTokensService) {}

  @RequireRole('admin')
  @Query(() => ApiTokenConnection, { description: 'All API tokens, active first. Pages both ways: first/after or last/before (at most 100). Admin only.' })
  async apiTokens(
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ) {
    return listConnection(await this.tokens.list(), (t) => t.id, 'ACTIVE_FIRST', { first, after, last, before });
  }

  @RequireRole('admin')
  @Mutation(() => RevokeApiTokenPayload, { description: 'Revokes a token by id or name; it stops working at once. Idempotent. Admin only.' })
  async revokeApiToken(@Args('input') input: RevokeApiTokenInput, @CurrentPrincipal() actor: Principal) {
    const token = /^[A-Za-z0-9_-]+$/.test(input.token) && isGlobalIdOf(input.token, 'ApiToken') ? localIdOf(input.token, 'ApiToken', 'input.token') : input.token;
    return { apiToken: await this.tokens.revoke(token, actor, input.note) };
  }
}
