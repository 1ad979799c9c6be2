import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { Request } from 'express';
import type { IncidentLoaders } from '@hindsight/incidents';

export interface GqlContext {
  req: Request;
  loaders: IncidentLoaders;
}

/** The per-request DataLoaders. */
export const Loaders = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IncidentLoaders => GqlExecutionContext.create(context).getContext<GqlContext>().loaders,
);
