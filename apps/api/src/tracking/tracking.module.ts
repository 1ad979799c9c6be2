import { Module } from '@nestjs/common';
import {
  ActionableStatsService,
  ActionableWritesService,
  IncidentWritesService,
  NoScenarioLink,
  SCENARIO_LINK,
  TRACKING_OPTIONS,
  type TrackingOptions,
} from '@hindsight/tracking';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ActionableMutationsResolver } from './actionable-mutations.resolver';
import { ActionableStatsResolver } from './actionable-stats.resolver';
import { FreshLoadersInterceptor } from './fresh-loaders.interceptor';
import { IncidentMutationsResolver } from './incident-mutations.resolver';
import { IncidentHistoryResolver, TrackedActionableResolver } from './tracked-actionable.resolver';
import { TrackingLoadersProvider } from './tracking-loaders.provider';

/** The write side: actionable tracking, incident corrections, audit trail and stats over GraphQL. */
@Module({
  providers: [
    { provide: TRACKING_OPTIONS, inject: [APP_CONFIG], useFactory: (config: AppConfig): TrackingOptions => ({ trackers: config.trackers }) },
    // The models library replaces this with its own ScenarioLink once scenarios exist.
    { provide: SCENARIO_LINK, useClass: NoScenarioLink },
    ActionableWritesService,
    IncidentWritesService,
    ActionableStatsService,
    TrackingLoadersProvider,
    FreshLoadersInterceptor,
    ActionableMutationsResolver,
    IncidentMutationsResolver,
    TrackedActionableResolver,
    IncidentHistoryResolver,
    ActionableStatsResolver,
  ],
  exports: [ActionableWritesService, IncidentWritesService],
})
export class TrackingModule {}
