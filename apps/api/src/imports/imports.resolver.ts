import { Args, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { ImportsService } from '@hindsight/imports';
import { checkPageSize } from '@hindsight/incidents';
import type { Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole } from '../auth/roles.decorator';
import { DraftIncident, ImportPostmortemInput, ImportPostmortemPayload, PublishIncidentInput, PublishIncidentPayload } from './import.types';

@Resolver()
export class ImportsResolver {
  constructor(private readonly imports: ImportsService) {}

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
  @Query(() => [DraftIncident], { description: 'Drafts awaiting review, newest first, with their import reports (editor).' })
  draftIncidents(@Args('first', { type: () => Int, nullable: true, defaultValue: 20 }) first: number) {
    return this.imports.listDrafts(checkPageSize(first));
  }
}
