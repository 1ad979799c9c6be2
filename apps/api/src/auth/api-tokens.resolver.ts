import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ApiTokensService, type Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from './current-principal.decorator';
import { RequireRole } from './roles.decorator';
import { isGlobalIdOf, localIdOf } from '../node/global-id';
import { ApiToken, RevokeApiTokenInput, RevokeApiTokenPayload } from './types/api-token.types';

/** Token administration over the API. Creating tokens is CLI-only, so a token is never sent back over HTTP. */
@Resolver(() => ApiToken)
export class ApiTokensResolver {
  constructor(private readonly tokens: ApiTokensService) {}

  @RequireRole('admin')
  @Query(() => [ApiToken], { description: 'All API tokens, active first. Admin only.' })
  apiTokens() {
    return this.tokens.list();
  }

  @RequireRole('admin')
  @Mutation(() => RevokeApiTokenPayload, { description: 'Revokes a token by id or name; it stops working at once. Idempotent. Admin only.' })
  async revokeApiToken(@Args('input') input: RevokeApiTokenInput, @CurrentPrincipal() actor: Principal) {
    const token = /^[A-Za-z0-9_-]+$/.test(input.token) && isGlobalIdOf(input.token, 'ApiToken') ? localIdOf(input.token, 'ApiToken', 'input.token') : input.token;
    return { apiToken: await this.tokens.revoke(token, actor, input.note) };
  }
}
