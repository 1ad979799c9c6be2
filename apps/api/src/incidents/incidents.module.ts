import { Module } from '@nestjs/common';
import { IncidentDurationsService, IncidentsService, RelatedIncidentsService, SearchResultsService } from '@hindsight/incidents';
import { IncidentDurationsResolver } from './incident-durations.resolver';
import { ActionablesResolver } from './actionables.resolver';
import { CausalFactorResolver, CausalLinkResolver } from './causal-graph.resolver';
import { IncidentsResolver } from './incidents.resolver';
import { PatternsResolver } from './patterns.resolver';
import { ActionableConnectionCountsResolver, IncidentConnectionCountsResolver } from './connection-counts.resolver';
import { FilterSuggestionsResolver, IncidentConnectionSearchResolver, IncidentEdgeSearchResolver, RelatedIncidentsResolver } from './search-results.resolver';

/** Read side of the knowledge base over GraphQL. */
@Module({
  providers: [
    IncidentsService,
    SearchResultsService,
    RelatedIncidentsService,
    IncidentsResolver,
    CausalFactorResolver,
    CausalLinkResolver,
    ActionablesResolver,
    PatternsResolver,
    IncidentConnectionCountsResolver,
    ActionableConnectionCountsResolver,
    IncidentConnectionSearchResolver,
    IncidentEdgeSearchResolver,
    RelatedIncidentsResolver,
    FilterSuggestionsResolver,
    IncidentDurationsService,
    IncidentDurationsResolver,
  ],
  exports: [IncidentsService, SearchResultsService, RelatedIncidentsService, IncidentDurationsService],
})
export class IncidentsModule {}
