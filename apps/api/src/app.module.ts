import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { GraphQLModule } from '@nestjs/graphql';
import type { Request } from 'express';
import { PrismaService } from '@hindsight/db';
import { IncidentLoaders } from '@hindsight/incidents';
import { AuthModule } from './auth/auth.module';
import { AppErrorFilter } from './common/app-error.filter';
import type { GqlContext } from './common/gql-context';
import type { AppConfig } from './config/app-config';
import { APP_CONFIG } from './config/app-config.token';
import { ExplorerController } from './explorer/explorer.controller';
import { explorerLandingPage } from './explorer/explorer.plugin';
import { HealthController } from './health/health.controller';
import { ImportsModule } from './imports/imports.module';
import { ModelsModule } from './models/models.module';
import { IncidentsModule } from './incidents/incidents.module';
import { GraphqlAdmissionPlugin } from './limits/graphql-admission.plugin';
import { LimitsModule } from './limits/limits.module';
import { ModelPanelModule } from './pages/model-panel/model-panel.module';
import { ModelPanel } from './pages/model-panel/model-panel.provider';
import { PagesModule } from './pages/pages.module';
import { TrackingModule } from './tracking/tracking.module';

/** The database client and the validated configuration, available to every module. */
@Global()
@Module({})
class CoreModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: PrismaService, useFactory: () => new PrismaService({ url: databaseUrl, ...config.db }) },
      ],
      exports: [APP_CONFIG, PrismaService],
    };
  }
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, databaseUrl),
        GraphQLModule.forRootAsync<ApolloDriverConfig>({
          driver: ApolloDriver,
          imports: [LimitsModule],
          inject: [PrismaService, GraphqlAdmissionPlugin],
          useFactory: (prisma: PrismaService, admission: GraphqlAdmissionPlugin) => ({
            autoSchemaFile: true,
            sortSchema: true,
            playground: false,
            // GRAPHQL_INTROSPECTION=false (the default with NODE_ENV=production) turns off both
            // introspection and the explorer page that depends on it.
            introspection: config.graphql.introspection,
            plugins: config.graphql.introspection ? [admission, explorerLandingPage()] : [admission],
            context: async ({ req }: { req: Request }): Promise<GqlContext> => {
              await admission.admitRequest(req);
              return { req, loaders: new IncidentLoaders(prisma) };
            },
          }),
        }),
        IncidentsModule,
        // Incident pages show the incident's executable model beside the narrative.
        PagesModule.register({ modelPanel: ModelPanel, imports: [ModelPanelModule] }),
        // One global guard: API tokens and roles for GraphQL and HTTP alike; these controllers stay open.
        AuthModule.forRoot({ publicControllers: [HealthController, ExplorerController] }),
        TrackingModule,
        ImportsModule,
        ModelsModule,
      ],
      controllers: [HealthController, ExplorerController],
      providers: [{ provide: APP_FILTER, useClass: AppErrorFilter }],
    };
  }
}
