import { UseInterceptors } from '@nestjs/common';
import { Args, ID, Int, Mutation, Resolver } from '@nestjs/graphql';
import { IncidentWritesService, type Principal } from '@hindsight/tracking';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole } from '../auth/roles.decorator';
import { IncidentStatusEnum } from '../common/graphql-enums';
import { Incident } from '../incidents/types/incident.types';
import { FreshLoadersInterceptor } from './fresh-loaders.interceptor';
import { CausalFactorInput, CausalLinkInput, IncidentInput, IncidentPatchInput, POSITION_DESCRIPTION, TimelineEventInput } from './types/tracking.inputs';

const VERSION = { type: () => Int, description: "The incident's version you last read; a stale one is CONFLICT and changes nothing." };
const NOTE = { type: () => String, nullable: true, description: 'Why; kept in the audit trail.' };
const POSITION = { type: () => Int, nullable: true, description: POSITION_DESCRIPTION };

/** Incident-level corrections for editors. Each returns the incident at its new version. */
@Resolver(() => Incident)
@UseInterceptors(FreshLoadersInterceptor)
export class IncidentMutationsResolver {
  constructor(private readonly incidents: IncidentWritesService) {}

  @Mutation(() => Incident, { description: 'A whole incident in one call (the importer uses it). CONFLICT when the slug is taken. Editor.' })
  createIncident(@Args('input') input: IncidentInput, @Args('status', { type: () => IncidentStatusEnum, defaultValue: 'draft' }) status: 'draft' | 'published', @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.create(input, status, actor, note);
  }

  @Mutation(() => Incident, { description: 'Changes fields of an incident, including its slug (the old one keeps working as an alias). Editor.' })
  updateIncident(@Args('slug') slug: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('patch') patch: IncidentPatchInput, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.update(slug, expectedVersion, patch, actor, note);
  }

  @Mutation(() => Incident, { description: 'Adds a timeline event, or replaces the one with the same key. Editor.' })
  upsertTimelineEvent(@Args('slug') slug: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('event') event: TimelineEventInput, @Args('position', POSITION) position: number | null, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.upsertTimelineEvent(slug, expectedVersion, event, position, actor, note);
  }

  @Mutation(() => Incident, { description: 'Removes a timeline event by key. Editor.' })
  deleteTimelineEvent(@Args('slug') slug: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('key') key: string, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.deleteTimelineEvent(slug, expectedVersion, key, actor, note);
  }

  @Mutation(() => Incident, { description: 'Adds a causal factor, or replaces the one with the same key. Editor.' })
  upsertCausalFactor(@Args('slug') slug: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('factor') factor: CausalFactorInput, @Args('position', POSITION) position: number | null, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.upsertCausalFactor(slug, expectedVersion, factor, position, actor, note);
  }

  @Mutation(() => Incident, { description: 'Removes a causal factor and its links; refused while an actionable addresses it. Editor.' })
  deleteCausalFactor(@Args('slug') slug: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('key') key: string, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.deleteCausalFactor(slug, expectedVersion, key, actor, note);
  }

  @Mutation(() => Incident, { description: 'Adds a causal link between two factors of the incident (no change if it exists). Editor.' })
  upsertCausalLink(@Args('slug') slug: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('link') link: CausalLinkInput, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.upsertCausalLink(slug, expectedVersion, link, actor, note);
  }

  @Mutation(() => Incident, { description: 'Removes a causal link. Editor.' })
  deleteCausalLink(@Args('slug') slug: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('link') link: CausalLinkInput, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.deleteCausalLink(slug, expectedVersion, link, actor, note);
  }

  @RequireRole('admin')
  @Mutation(() => ID, { description: 'Deletes an incident with everything under it; the audit trail stays. Admin.' })
  deleteIncident(@Args('slug') slug: string, @Args('expectedVersion', VERSION) expectedVersion: number, @Args('note', NOTE) note: string | null, @CurrentPrincipal() actor: Principal) {
    return this.incidents.delete(slug, expectedVersion, actor, note);
  }
}
