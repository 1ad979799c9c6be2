import { Module } from '@nestjs/common';
import { IMPORT_OPTIONS, ImportsService } from '@hindsight/imports';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { DraftIncidentConnectionCountsResolver, ImportsResolver } from './imports.resolver';

@Module({
  providers: [
    { provide: IMPORT_OPTIONS, inject: [APP_CONFIG], useFactory: (config: AppConfig) => config.imports },
    ImportsService,
    ImportsResolver,
    DraftIncidentConnectionCountsResolver,
  ],
  exports: [ImportsService],
})
export class ImportsModule {}
