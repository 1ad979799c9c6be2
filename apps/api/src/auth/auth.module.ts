import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiTokensService } from '@hindsight/tracking';
import { ApiTokensResolver } from './api-tokens.resolver';
import { AUTH_OPTIONS, AuthGuard, type AuthOptions } from './auth.guard';

/** API tokens and roles: one global guard for GraphQL operations and HTTP routes alike. */
@Module({})
export class AuthModule {
  static forRoot(options: AuthOptions): DynamicModule {
    return {
      module: AuthModule,
      // Global, so the GraphQL admission checks authenticate with the same ApiTokensService.
      global: true,
      providers: [
        { provide: AUTH_OPTIONS, useValue: options },
        ApiTokensService,
        ApiTokensResolver,
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
      exports: [ApiTokensService],
    };
  }
}
