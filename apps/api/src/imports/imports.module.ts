import { Module } from '@nestjs/common';
import { IMPORT_OPTIONS, DraftsService } from '@hindsight/drafts';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { DraftIncidentConnectionCountsResolver, ImportsResolver } from './imports.resolver';

@Module({
  providers: [
    { provide: IMPORT_OPTIONS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.imports },
    DraftsService,
    ImportsResolver,
    DraftIncidentConnectionCountsResolver,
  ],
  exports: [DraftsService],
})
export class ImportsModule {}
