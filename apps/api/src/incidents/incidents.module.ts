import { Module } from '@nestjs/common';
import { IncidentsService } from '@hindsight/incidents';
import { ActionablesResolver } from './actionables.resolver';
import { CausalFactorResolver, CausalLinkResolver } from './causal-graph.resolver';
import { IncidentsResolver } from './incidents.resolver';
import { PatternsResolver } from './patterns.resolver';
import { ActionableConnectionCountsResolver, IncidentConnectionCountsResolver } from './connection-counts.resolver';

/** Read side of the knowledge base over GraphQL. */
@Module({
  providers: [IncidentsService, IncidentsResolver, CausalFactorResolver, CausalLinkResolver, ActionablesResolver, PatternsResolver, IncidentConnectionCountsResolver, ActionableConnectionCountsResolver],
  exports: [IncidentsService],
})
export class IncidentsModule {}
