import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ACCESS_OPTIONS, AccountsService, ApiTokensService, SessionsService, type AccessOptions } from '@hindsight/tracking';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AccountConnectionCountsResolver, AccountsResolver } from './accounts.resolver';
import { ApiTokensResolver } from './api-tokens.resolver';
import { AUTH_OPTIONS, AuthGuard, type AuthOptions } from './auth.guard';

/** API tokens, people's accounts and sessions, and roles: one global guard for GraphQL operations and HTTP routes alike. */
@Module({})
export class AuthModule {
  static forRoot(options: AuthOptions): DynamicModule {
    return {
      module: AuthModule,
      // Global, so the GraphQL admission checks authenticate with the same ApiTokensService.
      global: true,
      providers: [
        { provide: AUTH_OPTIONS, useValue: options },
        {
          provide: ACCESS_OPTIONS,
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig): AccessOptions => config.access,
        },
        ApiTokensService,
        AccountsService,
        SessionsService,
        ApiTokensResolver,
        AccountsResolver,
        AccountConnectionCountsResolver,
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
      exports: [ApiTokensService, AccountsService, SessionsService],
    };
  }
}
