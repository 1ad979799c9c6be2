import { Inject } from '@nestjs/common';
import { Args, Int, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import {
  checkRelatedFirst,
  SearchResultsService,
  type IncidentLoaders,
  type IncidentFilter,
  type IncidentRecord,
  type SearchHighlight,
  type SuggestionField,
  type TextSearch,
} from '@hindsight/incidents';
import { Loaders } from '../common/gql-context';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { Incident, IncidentConnection, IncidentEdge } from './types/incident.types';
import { DidYouMean, Facet, FilterSuggestion, RelatedIncident, SearchHighlight as SearchHighlightType, SuggestionFieldEnum } from './types/search.types';

/** What `incidents` hands its connection's and edges' search fields. */
export interface SearchContext {
  filter: IncidentFilter;
  search: TextSearch | null;
  /** The exact size of the result set, counted on first use. */
  count: () => Promise<number>;
  /** Computed once per connection, on the first edge that asks. */
  highlights: () => Promise<Map<string, SearchHighlight[]>>;
}

@Resolver(() => IncidentConnection)
export class IncidentConnectionSearchResolver {
  constructor(
    private readonly results: SearchResultsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @ResolveField(() => [Facet], {
    description:
      'Counts of the result set by pattern, organization, component, year, actionable status, severity, near miss and tag; `first` values of each (at most 50). ' +
      'A filtered or searched list is counted over at most `countUpTo` matches (1 to 100000; by default the server\'s list count limit, `LIST_COUNT_LIMIT`, 1000 unless configured), so a word most incidents hold does not read them all; each facet says whether its counts are `complete`. ' +
      'The unfiltered list is always counted whole, recounted in the background about once a minute, so its counts may lag the list a little.',
  })
  async facets(
    @Parent() c: { searchContext: SearchContext },
    @Args('first', { type: () => Int, nullable: true, defaultValue: 10 }) first: number,
    @Args('countUpTo', {
      type: () => Int,
      nullable: true,
      description: 'Most matches to count, 1 to 100000; by default the list count limit (LIST_COUNT_LIMIT, 1000 unless configured). The unfiltered list is counted whole whatever its value. Counts in the cost of the operation.',
    })
    countUpTo: number | null,
  ) {
    return (await this.results.resultFacets(c.searchContext.filter, c.searchContext.search, first, countUpTo ?? this.config.listCountLimit)).facets;
  }

  @ResolveField(() => DidYouMean, { nullable: true, description: 'For a text search that found nothing: a corrected query that finds something, or null.' })
  async didYouMean(@Parent() c: { searchContext: SearchContext }) {
    const { search, filter, count } = c.searchContext;
    return search && (await count()) === 0 ? this.results.didYouMean(filter, search) : null;
  }
}

@Resolver(() => IncidentEdge)
export class IncidentEdgeSearchResolver {
  @ResolveField(() => [SearchHighlightType], { description: 'For a text search: where this result matched (up to 3 fields, most important first); empty otherwise.' })
  async highlights(@Parent() e: { node: IncidentRecord; searchContext?: SearchContext }) {
    if (!e.searchContext?.search) return [];
    return (await e.searchContext.highlights()).get(e.node.id) ?? [];
  }
}

@Resolver(() => Incident)
export class RelatedIncidentsResolver {
  @ResolveField(() => [RelatedIncident], { description: 'Incidents sharing failure patterns, components, causal structure or wording, closest first, each with its reasons. `first` is 1 to 20.' })
  related(@Parent() i: IncidentRecord, @Args('first', { type: () => Int, nullable: true, defaultValue: 5 }) first: number, @Loaders() loaders: IncidentLoaders) {
    checkRelatedFirst(first);
    return loaders.related.load({ id: i.id, first });
  }
}

@Resolver()
export class FilterSuggestionsResolver {
  constructor(private readonly results: SearchResultsService) {}

  @Query(() => [FilterSuggestion], { description: 'Values of the organization, component or owner filter containing `text` (case-insensitive), those starting with it first. `first` is 1 to 50.' })
  filterSuggestions(
    @Args('field', { type: () => SuggestionFieldEnum }) field: SuggestionField,
    @Args('text') text: string,
    @Args('first', { type: () => Int, nullable: true, defaultValue: 10 }) first: number,
  ) {
    return this.results.suggest(field, text, first);
  }
}
