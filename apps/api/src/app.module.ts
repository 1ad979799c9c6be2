import type { ApolloServerPlugin } from '@apollo/server' with { 'resolution-mode': 'import' };
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Global, Logger, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { GraphQLModule } from '@nestjs/graphql';
import type { Request } from 'express';
import { PrismaService } from '@hindsight/db';
import './common/graphql-argument-values';
import { AuthModule } from './auth/auth.module';
import { AppErrorFilter } from './common/app-error.filter';
import { DateTimeScalar } from './common/date-time.scalar';
import { graphqlErrorFormatter } from './common/errors/graphql-error.formatter';
import { inputGuardPlugin } from './common/input-guard.plugin';
import { aroundMutations } from './common/mutation-fields';
import type { GqlContext } from './common/gql-context';
import { RequestLoaders } from './common/request-loaders';
import type { AppConfig } from './config/app-config';
import { APP_CONFIG } from './config/app-config.token';
import { ExplorerController } from './explorer/explorer.controller';
import { explorerLandingPage } from './explorer/explorer.plugin';
import { HealthController } from './health/health.controller';
import { HealthProbesModule } from './health/health-probes.module';
import { ImportsModule } from './imports/imports.module';
import { ModelsModule } from './models/models.module';
import { NodeModule } from './node/node.module';
import { IncidentsModule } from './incidents/incidents.module';
import { GraphqlAdmissionPlugin } from './limits/graphql-admission.plugin';
import { LimitsModule } from './limits/limits.module';
import { graphqlMetricsPlugin } from './metrics/graphql-metrics.plugin';
import { MetricsModule } from './metrics/metrics.module';
import { MetricsService } from './metrics/metrics.service';
import { ModelPanelModule } from './pages/model-panel/model-panel.module';
import { ModelPanel } from './pages/model-panel/model-panel.provider';
import { NotificationsModule } from './notifications/notifications.module';
import { TrackerSyncModule } from './tracker-sync/tracker-sync.module';
import { PagesModule } from './pages/pages.module';
import { TrackingModule } from './tracking/tracking.module';
import { legacyJsonStatusPlugin, noStorePlugin } from './transport/graphql-transport';

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
          imports: [MetricsModule, LimitsModule],
          inject: [PrismaService, MetricsService, GraphqlAdmissionPlugin],
          useFactory: (prisma: PrismaService, metrics: MetricsService, admission: GraphqlAdmissionPlugin) => ({
            autoSchemaFile: true,
            sortSchema: true,
            playground: false,
            // Replaced by the GET rule of transport/graphql-transport.ts, which also lets negotiated GET queries through.
            csrfPrevention: false,
            // GRAPHQL_INTROSPECTION=false (the default with NODE_ENV=production) turns off both
            // introspection and the explorer page that depends on it.
            introspection: config.graphql.introspection,
            // Admission (sizes, cost) first: a refused operation costs nothing further.
            // Apollo's cache-control plugin is on by default and hooks every field's resolution to
            // collect @cacheControl hints; the schema has none, and noStorePlugin marks every answer no-store.
            plugins: [
              admission,
              ...(config.graphql.introspection ? [explorerLandingPage()] : []),
              inputGuardPlugin(),
              graphqlMetricsPlugin(metrics),
              legacyJsonStatusPlugin(),
              noStorePlugin(),
              ApolloServerPluginCacheControlDisabled() as ApolloServerPlugin<GqlContext>,
            ],
            buildSchemaOptions: { scalarsMap: [{ type: Date, scalar: DateTimeScalar }] },
            // Loaders reset and `input.` error paths for mutations only (see mutation-fields.ts).
            transformSchema: aroundMutations,
            // Errors are mapped once, in formatError; stacks stay on the server unless HINDSIGHT_DEV_ERRORS.
            autoTransformHttpErrors: false,
            includeStacktraceInErrorResponses: false,
            formatError: graphqlErrorFormatter({ devErrors: config.devErrors, logger: new Logger('Errors') }),
            // One set of loaders per operation: the tree statements leave out columns no field of
            // the operation reads (incident-loaders.ts, actionablesAsSelected), so batched HTTP
            // requests (Apollo's allowBatchedHttpRequests, off), which share one context, must not
            // be turned on without giving each operation its own loaders.
            context: async ({ req }: { req: Request }): Promise<GqlContext> => {
              await admission.admitRequest(req);
              return { req, loaders: new RequestLoaders(prisma) };
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
        NodeModule,
        MetricsModule,
        HealthProbesModule,
        NotificationsModule,
        TrackerSyncModule,
      ],
      controllers: [HealthController, ExplorerController],
      providers: [
        { provide: APP_FILTER, useClass: AppErrorFilter },
      ],
    };
  }
}
