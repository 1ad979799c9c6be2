import { Args, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
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

  @Query(() => Incident, { description: 'One incident by its slug; NOT_FOUND when there is none.' })
  incident(@Args('slug') slug: string) {
    return this.service.findBySlug(slug);
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

  @ResolveField(() => KeyTime, { nullable: true }) started(@Parent() i: IncidentRecord): KeyTime | null {
    return keyTime(i.startedAt, i.startedPrecision);
  }

  @ResolveField(() => KeyTime, { nullable: true }) detected(@Parent() i: IncidentRecord): KeyTime | null {
    return keyTime(i.detectedAt, i.detectedPrecision);
  }

  @ResolveField(() => KeyTime, { nullable: true }) mitigated(@Parent() i: IncidentRecord): KeyTime | null {
    return keyTime(i.mitigatedAt, i.mitigatedPrecision);
  }

  @ResolveField(() => KeyTime, { nullable: true }) resolved(@Parent() i: IncidentRecord): KeyTime | null {
    return keyTime(i.resolvedAt, i.resolvedPrecision);
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

/** A key time the source gives, or null: a KeyTime always has an instant. */
function keyTime(at: Date | null, precision: IncidentRecord['startedPrecision']): KeyTime | null {
  return at ? { at, precision } : null;
}
