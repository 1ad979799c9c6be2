import { Args, Context, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { Request } from 'express';
import { roleAllows } from '@hindsight/tracking';
import { principalOf } from '../auth/request-principal';
import {
  IncidentsService,
  type IncidentLoaders,
  type IncidentOrder,
  type IncidentRecord,
} from '@hindsight/incidents';
import { IncidentOrderEnum } from '../common/graphql-enums';
import { Loaders } from '../common/gql-context';
import { toConnection } from '../common/page-info.type';
import {
  Actionable,
  CausalFactor,
  CausalLink,
  Incident,
  IncidentConnection,
  IncidentFilterInput,
  IncidentSource,
  KeyTime,
  Pattern,
  TimelineEvent,
} from './types/incident.types';

@Resolver(() => Incident)
export class IncidentsResolver {
  constructor(private readonly service: IncidentsService) {}

  @Query(() => Incident, {
    description: 'One incident by its slug; NOT_FOUND when there is none. Editors and admins also get drafts (imported, not yet published); others only published incidents.',
  })
  async incident(@Args('slug') slug: string, @Context('req') req: Request) {
    const principal = await principalOf(req);
    return this.service.findBySlug(slug, { includeDrafts: principal !== null && roleAllows(principal.role, 'editor') });
  }

  @Query(() => IncidentConnection, { description: 'Incidents, newest first by default. `first` is capped at 100.' })
  async incidents(
    @Args('filter', { type: () => IncidentFilterInput, nullable: true }) filter: IncidentFilterInput | null,
    @Args('orderBy', { type: () => IncidentOrderEnum, nullable: true }) orderBy: IncidentOrder | null,
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
  ) {
    const page = await this.service.listIncidents(filter ?? {}, { orderBy, first, after });
    return { ...toConnection(page), searchWidened: page.search?.widened ?? [] };
  }

  @ResolveField(() => IncidentSource)
  source(@Parent() i: IncidentRecord): IncidentSource {
    return { title: i.sourceTitle, url: i.sourceUrl, language: i.sourceLanguage };
  }

  @ResolveField(() => KeyTime) started(@Parent() i: IncidentRecord): KeyTime {
    return { at: i.startedAt, precision: i.startedPrecision };
  }

  @ResolveField(() => KeyTime) detected(@Parent() i: IncidentRecord): KeyTime {
    return { at: i.detectedAt, precision: i.detectedPrecision };
  }

  @ResolveField(() => KeyTime) mitigated(@Parent() i: IncidentRecord): KeyTime {
    return { at: i.mitigatedAt, precision: i.mitigatedPrecision };
  }

  @ResolveField(() => KeyTime) resolved(@Parent() i: IncidentRecord): KeyTime {
    return { at: i.resolvedAt, precision: i.resolvedPrecision };
  }

  @ResolveField(() => [Pattern])
  patterns(@Parent() i: IncidentRecord, @Loaders() loaders: IncidentLoaders) {
    return loaders.patterns.load(i.id);
  }

  @ResolveField(() => [TimelineEvent], { description: 'In source order.' })
  timeline(@Parent() i: IncidentRecord, @Loaders() loaders: IncidentLoaders) {
    return loaders.timeline.load(i.id);
  }

  @ResolveField(() => [CausalFactor])
  causalFactors(@Parent() i: IncidentRecord, @Loaders() loaders: IncidentLoaders) {
    return loaders.factors.load(i.id);
  }

  @ResolveField(() => [CausalLink])
  causalLinks(@Parent() i: IncidentRecord, @Loaders() loaders: IncidentLoaders) {
    return loaders.links.load(i.id);
  }

  @ResolveField(() => [Actionable])
  actionables(@Parent() i: IncidentRecord, @Loaders() loaders: IncidentLoaders) {
    return loaders.actionables.load(i.id);
  }
}
