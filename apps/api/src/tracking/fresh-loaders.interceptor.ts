import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { Observable } from 'rxjs';
import { PrismaService } from '@hindsight/db';
import { IncidentLoaders } from '@hindsight/incidents';
import type { GqlContext } from '../common/gql-context';
import { TrackingLoadersProvider } from './tracking-loaders.provider';

/**
 * Mutations in one operation run one after another and share the request's DataLoaders. Fresh
 * loaders before each mutation keep the fields it returns from showing what an earlier mutation
 * of the same operation cached.
 */
@Injectable()
export class FreshLoadersInterceptor implements NestInterceptor {
  constructor(
    private readonly prisma: PrismaService,
    private readonly tracking: TrackingLoadersProvider,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const gql = GqlExecutionContext.create(context).getContext<GqlContext>();
    gql.loaders = new IncidentLoaders(this.prisma);
    this.tracking.reset(gql);
    return next.handle();
  }
}
