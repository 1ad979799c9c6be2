import { Module } from '@nestjs/common';
import { NOTIFICATION_OPTIONS, NotificationsService } from '@hindsight/notifications';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';

/** Outgoing signed webhooks on follow-up changes (`NOTIFY_WEBHOOK_URLS`); idle without subscribers. */
@Module({
  providers: [{ provide: NOTIFICATION_OPTIONS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.notifications }, NotificationsService],
  exports: [NotificationsService],
})
export class NotificationsModule {}
