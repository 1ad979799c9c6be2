import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ApiTokensService, type Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from './current-principal.decorator';
import { RequireRole } from './roles.decorator';
import { ApiToken } from './types/api-token.types';

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
  @Mutation(() => ApiToken, { description: 'Revokes a token by id or name; it stops working at once. Idempotent. Admin only.' })
  revokeApiToken(@Args('token', { type: () => ID, description: 'Id or name.' }) token: string, @Args('note', { type: () => String, nullable: true }) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.tokens.revoke(token, actor, note);
  }
}
