import { Module } from '@nestjs/common';
import {
  ActionableStatsService,
  ActionableWritesService,
  IncidentWritesService,
  TRACKING_OPTIONS,
  type TrackingOptions,
} from '@hindsight/tracking';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { RunbooksModule } from '../runbooks/runbooks.module';
import { TeamsModule } from '../teams/teams.module';
import { ActionableMutationsResolver } from './actionable-mutations.resolver';
import { ActionableStatsResolver } from './actionable-stats.resolver';
import { IncidentMutationsResolver } from './incident-mutations.resolver';
import { IncidentHistoryResolver, TrackedActionableResolver } from './tracked-actionable.resolver';
import { TrackerLinks } from './tracker-links';
import { TrackingLoadersProvider } from './tracking-loaders.provider';

/** The write side: actionable tracking, incident corrections, audit trail and stats over GraphQL. */
@Module({
  imports: [RunbooksModule, TeamsModule],
  providers: [
    { provide: TRACKING_OPTIONS, inject: [APP_CONFIG], useFactory: (config: AppConfig): TrackingOptions => ({ trackers: config.trackers, severityLevels: config.severityLevels }) },
    ActionableWritesService,
    IncidentWritesService,
    ActionableStatsService,
    TrackingLoadersProvider,
    TrackerLinks,
    ActionableMutationsResolver,
    IncidentMutationsResolver,
    TrackedActionableResolver,
    IncidentHistoryResolver,
    ActionableStatsResolver,
  ],
  exports: [ActionableWritesService, IncidentWritesService, TrackerLinks, RunbooksModule, TeamsModule],
})
export class TrackingModule {}
