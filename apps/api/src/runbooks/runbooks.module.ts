import { Module } from '@nestjs/common';
import { RunbooksService } from '@hindsight/tracking';
import { CitationNotices } from './citation-notices';
import {
  ActionableCitedByResolver,
  CausalFactorCitedByResolver,
  IncidentCitedByResolver,
  PatternCitedByResolver,
  RunbooksResolver,
} from './runbooks.resolver';

/** Runbooks and what they cite: the service, its GraphQL fields and mutations, and the notices writes give. */
@Module({
  providers: [RunbooksService, CitationNotices, RunbooksResolver, IncidentCitedByResolver, CausalFactorCitedByResolver, ActionableCitedByResolver, PatternCitedByResolver],
  exports: [RunbooksService, CitationNotices],
})
export class RunbooksModule {}
