import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { GraphQLModule } from '@nestjs/graphql';
import type { Request } from 'express';
import { PrismaService, type DatabaseOptions } from '@hindsight/db';
import { IncidentLoaders, IncidentsService } from '@hindsight/incidents';
import { AppErrorFilter } from './common/app-error.filter';
import type { GqlContext } from './common/gql-context';
import { APP_CONFIG } from './config/app-config.token';
import type { AppConfig } from './config/app-config';
import { ExplorerController } from './explorer/explorer.controller';
import { explorerLandingPage } from './explorer/explorer.plugin';
import { HealthController } from './health/health.controller';
import { ActionablesResolver } from './incidents/actionables.resolver';
import { CausalFactorResolver, CausalLinkResolver } from './incidents/causal-graph.resolver';
import { IncidentsResolver } from './incidents/incidents.resolver';
import { PatternsResolver } from './incidents/patterns.resolver';

@Global()
@Module({})
class DbModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DbModule,
      providers: [{ provide: PrismaService, useFactory: () => new PrismaService(options) }],
      exports: [PrismaService],
    };
  }
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DbModule.forRoot({ url: databaseUrl, ...config.db }),
        GraphQLModule.forRootAsync<ApolloDriverConfig>({
          driver: ApolloDriver,
          inject: [PrismaService],
          useFactory: (prisma: PrismaService) => ({
            autoSchemaFile: true,
            sortSchema: true,
            playground: false,
            introspection: true,
            plugins: [explorerLandingPage()],
            context: ({ req }: { req: Request }): GqlContext => ({ req, loaders: new IncidentLoaders(prisma) }),
          }),
        }),
      ],
      controllers: [HealthController, ExplorerController],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_FILTER, useClass: AppErrorFilter },
        IncidentsService,
        IncidentsResolver,
        CausalFactorResolver,
        CausalLinkResolver,
        ActionablesResolver,
        PatternsResolver,
      ],
    };
  }
}
