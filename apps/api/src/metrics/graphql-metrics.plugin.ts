import type { ApolloDriverConfig } from '@nestjs/apollo';
import { getOperationAST } from 'graphql';
import type { MetricsService } from './metrics.service';

/**
 * Times every GraphQL request by operation name and counts the errors of its response by
 * `extensions.code`. It reads the response as sent, so errors from parsing, validation rules
 * (cost and alias limits) and resolvers are all counted, whatever produced them.
 */
// The plugin type as the Apollo driver sees it (the ESM and CJS builds of @apollo/server declare it twice).
type ApolloPlugin = NonNullable<ApolloDriverConfig['plugins']>[number];

export function graphqlMetricsPlugin(metrics: MetricsService): ApolloPlugin {
  return {
    async requestDidStart() {
      const started = process.hrtime.bigint();
      return {
        async willSendResponse(ctx) {
          // Named from the document even when validation refused it (a rejected query is still "its" operation).
          const name = ctx.operationName ?? (ctx.document ? getOperationAST(ctx.document, ctx.request.operationName)?.name?.value : null) ?? null;
          const operation = metrics.operationLabel.of(name, 'anonymous');
          metrics.graphqlDuration.observe({ operation }, Number(process.hrtime.bigint() - started) / 1e9);
          const body = ctx.response.body;
          const errors = body.kind === 'single' ? body.singleResult.errors : body.initialResult.errors;
          for (const error of errors ?? []) {
            const code = error.extensions?.code;
            metrics.graphqlErrors.inc({ code: metrics.errorCodeLabel.of(typeof code === 'string' ? code : null, 'UNKNOWN') });
          }
        },
      };
    },
  };
}
