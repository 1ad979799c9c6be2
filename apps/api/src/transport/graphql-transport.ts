import type { ApolloDriverConfig } from '@nestjs/apollo';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';

/**
 * How /graphql meets HTTP clients (GraphQL over HTTP, graphql-http's audits):
 *
 * - POST with a JSON body runs anything; a POST in a content type a cross-site form can send
 *   (text/plain, form encodings) is refused by Apollo, so mutations stay CSRF-safe: a browser
 *   sends a JSON POST to another origin only after a preflight that CORS answers.
 * - GET runs queries, never mutations (Apollo answers 405), when the request says what it wants
 *   back (`Accept` naming application/graphql-response+json or application/json) or is an
 *   automatic persisted query. Anything else is refused with 400, as Apollo's CSRF prevention
 *   did for every GET before.
 * - CORS: only origins in CORS_ALLOWED_ORIGINS get CORS headers; preflights are answered 204
 *   either way, so a browser sees a clear refusal instead of a 400.
 */
export function configureGraphqlTransport(app: NestExpressApplication, corsOrigins: readonly string[]): void {
  app.enableCors({
    origin: (origin: string | undefined, done: (error: Error | null, allow?: boolean) => void) => done(null, origin !== undefined && corsOrigins.includes(origin)),
    methods: ['GET', 'POST'],
    allowedHeaders: ['content-type', 'accept', 'authorization', 'x-request-id', 'apollo-require-preflight', 'x-apollo-operation-name'],
    exposedHeaders: ['x-request-id', 'retry-after'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
  // The cors middleware passes preflights from other origins on (Apollo would answer 405): answer them, without CORS headers.
  app.use('/graphql', (req: Request, res: Response, next: NextFunction) => (req.method === 'OPTIONS' ? res.status(204).end() : next()));
  app.use('/graphql', safeGet);
}

const NEGOTIATED = /application\/(graphql-response\+)?json/i;
const PREFLIGHT_HEADERS = ['apollo-require-preflight', 'x-apollo-operation-name'];

function safeGet(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'GET' || Object.keys(req.query).length === 0) return next();
  const accept = req.headers.accept ?? '';
  const persisted = typeof req.query.extensions === 'string' && req.query.extensions.includes('persistedQuery');
  const preflighted = PREFLIGHT_HEADERS.some((h) => typeof req.headers[h] === 'string' && req.headers[h] !== '');
  if (NEGOTIATED.test(accept) || persisted || preflighted) {
    // Apollo's own CSRF check is off (it refuses every plain GET); this rule replaces it.
    return next();
  }
  res.status(400).json({
    errors: [
      {
        message: 'A GET request must send Accept: application/graphql-response+json (or application/json), or be a persisted query.',
        extensions: { code: 'BAD_REQUEST' },
      },
    ],
  });
}

// The plugin type as the Apollo driver sees it (the ESM and CJS builds of @apollo/server declare it twice).
type ApolloPlugin = NonNullable<ApolloDriverConfig['plugins']>[number];

const REQUEST_ERRORS = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'OPERATION_RESOLUTION_FAILURE']);

/**
 * A request error (the document does not parse or validate, variables do not coerce) before
 * anything ran: with `application/graphql-response+json` it keeps its 4xx, as that media type
 * asks; with `application/json` it is answered 200, as the GraphQL-over-HTTP spec says for
 * the legacy type (graphql-http SHOULD 572B, FDE2, 7B9B), since such clients read the body's
 * `errors` rather than the status. Size and cost refusals (QUERY_TOO_COMPLEX), rate limits
 * (429) and refusals of the caller (401, 403) keep their status whatever the type.
 */
export function legacyJsonStatusPlugin(): ApolloPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ request, response }) {
          if (response.body.kind !== 'single' || response.body.singleResult.data !== undefined) return;
          if (wantsGraphqlResponse(request.http?.headers.get('accept'))) return;
          const errors = response.body.singleResult.errors ?? [];
          if (errors.length > 0 && errors.every((e) => REQUEST_ERRORS.has(String(e.extensions?.code)))) response.http.status = 200;
        },
      };
    },
  };
}

/**
 * Every GraphQL answer says `Cache-Control: no-store`: answers depend on the caller (tokens,
 * sessions) and change with every write, so no shared cache or browser may keep one. Apollo's
 * cache-control plugin used to set this, but it also wraps every field's resolver to collect
 * `@cacheControl` hints the schema never gives, so it is off and this sets the header alone.
 */
export function noStorePlugin(): ApolloPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          response.http.headers.set('cache-control', 'no-store');
        },
      };
    },
  };
}

/** Whether the client asked for application/graphql-response+json (Apollo then answers in it). */
function wantsGraphqlResponse(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => {
    const [type, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return type?.trim().toLowerCase() === 'application/graphql-response+json' && (q === undefined || Number(q.slice(2)) > 0);
  });
}
