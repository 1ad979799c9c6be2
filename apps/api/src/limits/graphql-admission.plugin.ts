// Types only, from the ES module build that @nestjs/apollo loads (the CommonJS build's types differ).
import type { ApolloServerPlugin, GraphQLRequestContext, GraphQLRequestListener } from '@apollo/server' with { 'resolution-mode': 'import' };
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { GraphQLError, Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { AppError } from '@hindsight/domain';
import { ApiTokensService, principalKey, SessionsService } from '@hindsight/tracking';
import { authenticateRequest } from '../auth/request-principal';
import { HTTP_STATUS } from '../common/errors/app-error.mapping';
import type { GqlContext } from '../common/gql-context';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { OperationLimits } from './operation-limits';
import { PenaltyBox } from './penalty-box';
import { RateLimits, type RateLimitedWork } from './rate-limits.service';

/** Root fields that run a model: counted as model runs, not as writes. */
const MODEL_RUN_FIELDS = new Set(['runModel', 'compareScenarios']);

/**
 * Decides, before a GraphQL operation runs, whether it may run at all, cheapest check first:
 *
 * 1. the caller: a bad token, or no token while PUBLIC_READ is off, is UNAUTHENTICATED before the
 *    document is even parsed (the auth guard only sees operations that reach a resolver, which
 *    an introspection-only operation never does);
 * 2. the document's size (tokens, before parsing) and shape ({@link OperationLimits}): QUERY_TOO_COMPLEX;
 * 3. the caller's rate of writes and model runs ({@link RateLimits}): TOO_MANY_REQUESTS with
 *    `retryAfterSeconds` and a `Retry-After` header.
 *
 * A refusal answers at once, with the HTTP status of its code, and nothing has touched the data.
 */
@Injectable()
export class GraphqlAdmissionPlugin implements ApolloServerPlugin<GqlContext> {
  private readonly limits: OperationLimits;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    readonly tokens: ApiTokensService,
    readonly sessions: SessionsService,
    private readonly rateLimits: RateLimits,
    private readonly penaltyBox: PenaltyBox,
  ) {
    this.limits = new OperationLimits(config.graphql, config.listCountLimit);
  }

  /**
   * Checks 1 and the token budget of 2, from the GraphQL context function: Apollo answers an
   * error thrown there with its own status, before parsing (a plugin's early hooks cannot refuse).
   */
  async admitRequest(req: Request): Promise<void> {
    const principal = await authenticateRequest(req, this).catch((error: unknown) => {
      throw error instanceof AppError ? refusal(error) : error;
    });
    if (!principal && !this.config.publicRead) {
      throw refusal(
        new AppError('UNAUTHENTICATED', 'Reading needs an API token or a signed-in session while PUBLIC_READ is off: send Authorization: Bearer <token>.', { requiredRole: 'viewer' }),
      );
    }
    const source = sourceOf(req);
    const tooLong = source === null ? null : this.limits.checkTokens(source);
    if (tooLong) {
      await this.penaltyBox.strike(req);
      throw refusal(tooLong);
    }
  }

  async requestDidStart({ contextValue }: GraphQLRequestContext<GqlContext>): Promise<GraphQLRequestListener<GqlContext>> {
    const { req } = contextValue;
    return {
      didResolveOperation: async ({ schema, document, operation, request }) => {
        if (!operation) return;
        const tooLarge = this.limits.checkOperation(schema, document, request.operationName ?? undefined, request.variables);
        if (tooLarge) {
          await this.penaltyBox.strike(req);
          throw refusal(tooLarge);
        }
        const principal = await authenticateRequest(req, this);
        const client = { tokenId: principal ? principalKey(principal) : null, address: req.ip ?? req.socket.remoteAddress ?? 'unknown' };
        for (const [work, points] of countWork(document, operation)) {
          await this.rateLimits.consume(work, client, points).catch((error: unknown) => {
            throw error instanceof AppError ? refusal(error) : error;
          });
        }
      },
    };
  }
}

/** The document of a POST body or a GET query string, as Apollo will read it. */
function sourceOf(req: Request): string | null {
  const body = req.body as { query?: unknown } | undefined;
  if (body && typeof body.query === 'string') return body.query;
  const query = req.query?.query;
  return typeof query === 'string' ? query : null;
}

/** The refusal as GraphQL reports it, with its HTTP status (and Retry-After when it has one). */
function refusal(error: AppError): GraphQLError {
  // Apollo accepts any Map of lower-case header names here.
  const headers = new Map<string, string>();
  const retryAfter = (error.details as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof retryAfter === 'number') headers.set('retry-after', String(retryAfter));
  return new GraphQLError(error.message, { extensions: { code: error.code, ...error.details, http: { status: HTTP_STATUS[error.code], headers } } });
}

/** Model runs and writes the operation asks for: one per root field, aliases included. */
function countWork(document: DocumentNode, operation: OperationDefinitionNode): Map<RateLimitedWork, number> {
  const counts = new Map<RateLimitedWork, number>();
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const visit = (set: SelectionSetNode, seen: Set<string>) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        const work: RateLimitedWork | null = MODEL_RUN_FIELDS.has(name) ? 'modelRuns' : operation.operation === 'mutation' && !name.startsWith('__') ? 'writes' : null;
        if (work) counts.set(work, (counts.get(work) ?? 0) + 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, seen);
      } else if (!seen.has(selection.name.value)) {
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet, new Set([...seen, selection.name.value]));
      }
    }
  };
  visit(operation.selectionSet, new Set());
  return counts;
}
