import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { IncidentsModule } from '../../incidents/incidents.module';
import { LimitsModule } from '../../limits/limits.module';
import { ModelsModule } from '../../models/models.module';
import { PageHeadersMiddleware } from '../page-headers.middleware';
import { ModelBuilderPageController } from './model-builder-page.controller';
import { ModelFragmentController } from './model-fragment.controller';
import { ModelPanel } from './model-panel.provider';

/**
 * The executable-model panel of incident pages and its fragment route. Pages bind it with
 * `PagesModule.register({ modelPanel: ModelPanel, imports: [ModelPanelModule] })`; this module
 * re-exports ModelsModule so the panel the page module builds finds ModelRunsService.
 */
@Module({
  imports: [ModelsModule, IncidentsModule, LimitsModule],
  controllers: [ModelFragmentController, ModelBuilderPageController],
  providers: [ModelPanel],
  exports: [ModelPanel, ModelsModule],
})
export class ModelPanelModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // The fragment is HTML like the pages, so it gets the same headers (CSP, nosniff, no framing).
    consumer.apply(PageHeadersMiddleware).forRoutes(ModelFragmentController, ModelBuilderPageController);
  }
}
