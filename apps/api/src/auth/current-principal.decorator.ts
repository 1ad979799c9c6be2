import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { Request } from 'express';
import { AppError } from '@hindsight/domain';
import type { Principal } from '@hindsight/tracking';
import { principalOf } from './request-principal';

export function requestOf(context: ExecutionContext): Request {
  return context.getType<string>() === 'graphql'
    ? GqlExecutionContext.create(context).getContext<{ req: Request }>().req
    : context.switchToHttp().getRequest<Request>();
}

/**
 * The authenticated caller of a write. The guard has already refused anonymous writes; the
 * check here keeps a handler without a guard from writing an audit event with no actor.
 */
export const CurrentPrincipal = createParamDecorator(async (_data: unknown, context: ExecutionContext): Promise<Principal> => {
  const principal = await principalOf(requestOf(context));
  if (!principal) throw new AppError('UNAUTHENTICATED', 'This operation needs an API token: send Authorization: Bearer <token>.');
  return principal;
});
