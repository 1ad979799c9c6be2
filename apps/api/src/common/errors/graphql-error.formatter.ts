import type { Logger } from '@nestjs/common';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { clip, clipDetails, describeFault, INTERNAL_MESSAGE, originalOf, toAppError } from './app-error.mapping';

export interface ErrorFormatterOptions {
  /** Development switch: add the server-side stack to each error. Off unless configured. */
  devErrors: boolean;
  logger: Pick<Logger, 'error'>;
}

/**
 * Apollo's formatError: the one place every GraphQL error passes, whether a root resolver, a
 * field resolver, a DataLoader, a scalar or validation raised it. Known families keep their
 * code and typed details; anything else is a fault, logged once in one line and answered with
 * INTERNAL_SERVER_ERROR and a generic message. No stack leaves the server unless `devErrors`.
 */
/** Errors Apollo raises on purpose without a code (it then says INTERNAL_SERVER_ERROR), and the code clients get for them. */
const UNCODED_APOLLO_ERRORS: Record<string, string> = {
  // An automatic persisted query whose sha256Hash is not the hash of the query sent with it.
  'provided sha does not match query': 'PERSISTED_QUERY_HASH_MISMATCH',
};

export function graphqlErrorFormatter(options: ErrorFormatterOptions) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = originalOf(error);
    const where = { ...(formatted.locations ? { locations: formatted.locations } : {}), ...(formatted.path ? { path: formatted.path } : {}) };
    const dev = (e: unknown) => (options.devErrors && e instanceof Error && e.stack ? { stacktrace: e.stack.split('\n').slice(0, 12) } : {});

    const mapped = toAppError(original);
    if (mapped) {
      return { message: clip(mapped.message), ...where, extensions: { code: mapped.code, ...clipDetails(mapped.details as Record<string, unknown>), ...dev(original) } };
    }
    // Errors graphql-js and Apollo raise on purpose (parse, validation, variable coercion, the
    // input guard, limits added as plugins) are GraphQLErrors with a code and no other cause.
    const { stacktrace: _dropped, ...extensions } = formatted.extensions ?? {};
    const code = UNCODED_APOLLO_ERRORS[formatted.message] ?? (typeof extensions.code === 'string' ? extensions.code : 'INTERNAL_SERVER_ERROR');
    if (original instanceof GraphQLError && code !== 'INTERNAL_SERVER_ERROR') {
      return { message: clip(formatted.message), ...where, extensions: { ...clipDetails(extensions), code, ...dev(original) } };
    }
    const at = formatted.path ? ` [${formatted.path.join('.')}]` : '';
    options.logger.error(`${describeFault(original)}${at}`);
    return { message: INTERNAL_MESSAGE, ...where, extensions: { code: 'INTERNAL_SERVER_ERROR', ...dev(original) } };
  };
}
