import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { AppError } from '@hindsight/domain';
import { toAppError } from './errors/app-error.mapping';
import type { GqlContext } from './gql-context';

/**
 * Around every mutation, whichever module declares it (every field of the schema's Mutation
 * type is wrapped once, when the schema is built):
 *
 * - Mutations in one operation run one after another and share the request's DataLoaders; every
 *   kind of loader is reset first, so the fields a mutation returns never show what an earlier
 *   field or mutation of the same operation cached.
 * - Every mutation takes one `input` argument, so the fields its errors name are under it: the
 *   libs name `patch.title` or `expectedVersion`, the client sent `input.patch.title`.
 *
 * Query fields are left as they are. (This was a Nest interceptor registered for the whole app,
 * which put every query's root field through Nest's interceptor chain, observables and async
 * resources included, only to find it was not a mutation.)
 */
export function aroundMutations(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const resolve: GraphQLFieldResolver<unknown, GqlContext> = field.resolve ?? defaultFieldResolver;
    field.resolve = async (source, args, context: GqlContext, info) => {
      context.loaders?.reset();
      try {
        return await resolve(source, args, context, info);
      } catch (error) {
        const mapped = toAppError(error);
        throw mapped ? underInput(mapped) : error;
      }
    };
  }
  return schema;
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
