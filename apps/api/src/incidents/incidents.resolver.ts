import { Args, Context, Info, Int, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { Request } from 'express';
import { roleAllows } from '@hindsight/tracking';
import { principalOf } from '../auth/request-principal';
import {
  IncidentsService,
  SearchResultsService,
  type IncidentLoaders,
  type IncidentOrder,
  type IncidentRecord,
} from '@hindsight/incidents';
import { IncidentOrderEnum } from '../common/graphql-enums';
import { Loaders, type GqlContext } from '../common/gql-context';
import { toConnection } from '../common/page-info.type';
import { incidentFieldInclude, incidentPageInclude } from './includes';
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
  constructor(
    private readonly service: IncidentsService,
    private readonly searchResults: SearchResultsService,
  ) {}

  @Query(() => Incident, {
    description: 'One incident by its slug; NOT_FOUND when there is none. Editors and admins also get drafts (imported, not yet published); others only published incidents.',
  })
  async incident(@Args('slug') slug: string, @Loaders() loaders: IncidentLoaders, @Info() info: GraphQLResolveInfo, @Context('req') req: Request) {
    const principal = await principalOf(req);
    return this.service.findBySlug(slug, { loaders, include: incidentFieldInclude(info), includeDrafts: principal !== null && roleAllows(principal.role, 'editor') });
  }

  @Query(() => IncidentConnection, { description: 'Incidents, newest first by default. Pages both ways: first/after or last/before (at most 100); a cursor belongs to its orderBy (and, for RELEVANCE, its search).' })
  async incidents(
    @Args('filter', { type: () => IncidentFilterInput, nullable: true }) filter: IncidentFilterInput | null,
    @Args('orderBy', { type: () => IncidentOrderEnum, nullable: true }) orderBy: IncidentOrder | null,
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
    @Loaders() loaders: IncidentLoaders,
    @Info() info: GraphQLResolveInfo,
  ) {
    const include = incidentPageInclude(info);
    const page = await this.service.listIncidents(filter ?? {}, { orderBy, first, after, last, before }, { loaders, include });
    const connection = toConnection(page);
    const searchContext = this.searchResults.context(filter ?? {}, page.search, page.count, page.nodes.map((n) => n.id));
    return { ...connection, edges: connection.edges.map((e) => ({ ...e, searchContext })), searchContext, searchWidened: page.search?.widened ?? [] };
  }

  @ResolveField(() => String, { description: 'Markdown.' })
  narrative(i: IncidentRecord, _args: unknown, { loaders }: GqlContext): string | Promise<string> {
    // Lists load the (large) narrative only when selected; anything else that needs it loads it here.
    return typeof i.narrative === 'string' ? i.narrative : loaders.incidents.narrative.get(i.id);
  }

  @ResolveField(() => IncidentSource)
  source(i: IncidentRecord): IncidentSource {
    return { title: i.sourceTitle, url: i.sourceUrl, language: i.sourceLanguage, originalText: i.sourceOriginalText };
  }

  @ResolveField(() => KeyTime, { nullable: true }) started(i: IncidentRecord): KeyTime | null {
    return keyTime(i.startedAt, i.startedPrecision);
  }

  @ResolveField(() => KeyTime, { nullable: true }) detected(i: IncidentRecord): KeyTime | null {
    return keyTime(i.detectedAt, i.detectedPrecision);
  }

  @ResolveField(() => KeyTime, { nullable: true }) mitigated(i: IncidentRecord): KeyTime | null {
    return keyTime(i.mitigatedAt, i.mitigatedPrecision);
  }

  @ResolveField(() => KeyTime, { nullable: true }) resolved(i: IncidentRecord): KeyTime | null {
    return keyTime(i.resolvedAt, i.resolvedPrecision);
  }

  @ResolveField(() => [Pattern])
  patterns(i: IncidentRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.patternsAsSelected.get(i.id);
  }

  @ResolveField(() => [TimelineEvent], { description: 'In source order.' })
  timeline(i: IncidentRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.timeline.get(i.id);
  }

  @ResolveField(() => [CausalFactor])
  causalFactors(i: IncidentRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.factors.get(i.id);
  }

  @ResolveField(() => [CausalLink])
  causalLinks(i: IncidentRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.links.get(i.id);
  }

  @ResolveField(() => [Actionable])
  actionables(i: IncidentRecord, _args: unknown, { loaders }: GqlContext) {
    return loaders.incidents.actionablesAsSelected.get(i.id);
  }
}

/** A key time the source gives, or null: a KeyTime always has an instant. */
function keyTime(at: Date | null, precision: IncidentRecord['startedPrecision']): KeyTime | null {
  return at ? { at, precision } : null;
}
