import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { GqlExecutionContext, type GqlContextType } from '@nestjs/graphql';
import { catchError, type Observable } from 'rxjs';
import { AppError } from '@hindsight/domain';
import { toAppError } from './errors/app-error.mapping';
import type { GqlContext } from './gql-context';

/**
 * Around every mutation (of any module: it is registered once, for the whole app):
 *
 * - Mutations in one operation run one after another and share the request's DataLoaders; every
 *   kind of loader is reset first, so the fields a mutation returns never show what an earlier
 *   field or mutation of the same operation cached.
 * - Every mutation takes one `input` argument, so the fields its errors name are under it: the
 *   libs name `patch.title` or `expectedVersion`, the client sent `input.patch.title`.
 */
@Injectable()
export class MutationInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<GqlContextType>() !== 'graphql') return next.handle();
    const gql = GqlExecutionContext.create(context);
    if (gql.getInfo()?.parentType?.name !== 'Mutation') return next.handle();
    gql.getContext<GqlContext>().loaders?.reset();
    return next.handle().pipe(
      catchError((error: unknown) => {
        const mapped = toAppError(error);
        throw mapped ? underInput(mapped) : error;
      }),
    );
  }
}

const under = (field: unknown) => (typeof field === 'string' && field !== '' && !field.startsWith('input.') && field !== 'input' ? `input.${field}` : field);

function underInput(error: AppError): AppError {
  const details = error.details as Record<string, unknown>;
  if (typeof details.field !== 'string' && !Array.isArray(details.problems)) return error;
  const problems = Array.isArray(details.problems) ? details.problems.map((p: { field?: unknown }) => ({ ...p, field: under(p.field) })) : undefined;
  const field = under(details.field);
  const message = typeof details.field === 'string' && error.message.startsWith(`${details.field}:`) ? `${String(field)}${error.message.slice(details.field.length)}` : error.message;
  return new AppError(error.code, message, { ...details, ...(field === undefined ? {} : { field }), ...(problems ? { problems } : {}) } as AppError['details']);
}
