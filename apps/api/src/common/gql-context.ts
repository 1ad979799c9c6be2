import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { Request } from 'express';
import type { IncidentLoaders } from '@hindsight/incidents';
import type { RequestLoaders } from './request-loaders';

export interface GqlContext {
  req: Request;
  /** The request's DataLoaders, every kind of them (see RequestLoaders). */
  loaders: RequestLoaders;
}

/** The request's incident DataLoaders. */
export const Loaders = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IncidentLoaders => GqlExecutionContext.create(context).getContext<GqlContext>().loaders.incidents,
);

/** The request's RequestLoaders, for loaders of other libs. */
export const AllLoaders = createParamDecorator(
  (_data: unknown, context: ExecutionContext): RequestLoaders => GqlExecutionContext.create(context).getContext<GqlContext>().loaders,
);
