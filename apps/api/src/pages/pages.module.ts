import { Module, type DynamicModule, type MiddlewareConsumer, type ModuleMetadata, type NestModule, type Type } from '@nestjs/common';
import { IncidentsModule } from '../incidents/incidents.module';
import { LimitsModule } from '../limits/limits.module';
import { TrackingModule } from '../tracking/tracking.module';
import { ActionableListPageController } from './actionable-list-page.controller';
import { EmptyModelPanel } from './empty-model-panel.provider';
import { IncidentExportController } from './incident-export.controller';
import { IncidentExports } from './incident-exports';
import { IncidentListPageController } from './incident-list-page.controller';
import { INCIDENT_MODEL_PANEL, type IncidentModelPanel } from './incident-model-panel.token';
import { IncidentPageController } from './incident-page.controller';
import { PageAssetsController } from './page-assets.controller';
import { PageDataService } from './page-data.service';
import { PageHeadersMiddleware } from './page-headers.middleware';
import { DurationsPageController } from './durations-page.controller';
import { PatternPageController } from './pattern-page.controller';
import { SignInController } from './sign-in/sign-in.controller';
import { ActionableEditPageController } from './editing/actionable-edit-page.controller';
import { IncidentEditPageController } from './editing/incident-edit-page.controller';
import { DraftReviewPageController } from './editing/draft-review-page.controller';
import { IncidentPartsPageController } from './editing/incident-parts-page.controller';
import { RunbookCitationsPageController } from './editing/runbook-citations-page.controller';
import { ImportsModule } from '../imports/imports.module';

export interface PagesModuleOptions {
  /** Fills the "Model" aside of incident pages; by default an honest empty state. */
  modelPanel?: Type<IncidentModelPanel>;
  /** Modules whose providers the model panel injects. */
  imports?: NonNullable<ModuleMetadata['imports']>;
}

// The export routes (`:slug.json`, `:slug.md`) come before the pages' `:slug`, which would match them too.
const CONTROLLERS = [
  IncidentExportController,
  IncidentListPageController,
  IncidentPageController,
  ActionableListPageController,
  PatternPageController,
  DurationsPageController,
  PageAssetsController,
  SignInController,
  ActionableEditPageController,
  IncidentEditPageController,
  DraftReviewPageController,
  IncidentPartsPageController,
  RunbookCitationsPageController,
];

/** Server-rendered HTML pages for people: incidents, follow-ups, patterns. */
@Module({})
export class PagesModule implements NestModule {
  static register(options: PagesModuleOptions = {}): DynamicModule {
    return {
      module: PagesModule,
      imports: [IncidentsModule, LimitsModule, TrackingModule, ImportsModule, ...(options.imports ?? [])],
      controllers: CONTROLLERS,
      providers: [PageDataService, IncidentExports, { provide: INCIDENT_MODEL_PANEL, useClass: options.modelPanel ?? EmptyModelPanel }],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PageHeadersMiddleware).forRoutes(...CONTROLLERS);
  }
}
