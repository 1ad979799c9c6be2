import { Module } from '@nestjs/common';
import { TRACKER_SYNC_OPTIONS, TrackerSyncService } from '@hindsight/tracker-sync';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { TrackingModule } from '../tracking/tracking.module';
import { TrackerWebhooksController } from './tracker-webhooks.controller';

/** Two-way sync of follow-ups with the GitHub issues and Jira keys they reference; idle unless a tracker is configured. */
@Module({
  imports: [TrackingModule],
  controllers: [TrackerWebhooksController],
  providers: [{ provide: TRACKER_SYNC_OPTIONS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.trackerSync }, TrackerSyncService],
})
export class TrackerSyncModule {}
