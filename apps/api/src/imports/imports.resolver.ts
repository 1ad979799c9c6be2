import { Args, Int, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { DraftsService } from '@hindsight/drafts';
import { toConnection, type ConnectionCounts } from '../common/page-info.type';
import type { Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole } from '../auth/roles.decorator';
import { DraftIncidentConnection, ImportPostmortemInput, ImportPostmortemPayload, PublishIncidentInput, PublishIncidentPayload } from './import.types';

@Resolver()
export class ImportsResolver {
  constructor(private readonly imports: DraftsService) {}

  @Mutation(() => ImportPostmortemPayload, {
    description: 'Turns a postmortem document into a draft incident (editor). Importing the same document again updates its draft.',
  })
  importPostmortem(@Args('input') input: ImportPostmortemInput, @CurrentPrincipal() principal: Principal) {
    return this.imports.importDocument({ ...input, actor: principal });
  }

  @Mutation(() => PublishIncidentPayload, { description: 'Makes a draft visible to readers (editor).' })
  async publishIncident(@Args('input') input: PublishIncidentInput, @CurrentPrincipal() principal: Principal) {
    return { incident: await this.imports.publish(input.slug, input.expectedVersion, principal) };
  }

  @RequireRole('editor')
  @Query(() => DraftIncidentConnection, { description: 'Drafts awaiting review, most recently changed first, with their import reports (editor). Pages both ways: first/after or last/before (at most 100).' })
  async draftIncidents(
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ) {
    return toConnection(await this.imports.listDrafts({ first, after, last, before }));
  }
}

// Counting is a statement of its own, run only when the query selects the field.
@Resolver(() => DraftIncidentConnection)
export class DraftIncidentConnectionCountsResolver {
  @ResolveField(() => Int)
  totalCount(c: ConnectionCounts): Promise<number> {
    return c.count();
  }
}
