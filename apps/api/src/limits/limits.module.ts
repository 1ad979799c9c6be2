import { Module } from '@nestjs/common';
import { GraphqlAdmissionPlugin } from './graphql-admission.plugin';
import { PenaltyBox } from './penalty-box';
import { RateLimits } from './rate-limits.service';

/**
 * What bounds one request: the GraphQL admission checks and the per-client rate limits. Needs
 * ApiTokensService, which the (global) AuthModule exports.
 */
@Module({
  providers: [RateLimits, PenaltyBox, GraphqlAdmissionPlugin],
  exports: [RateLimits, PenaltyBox, GraphqlAdmissionPlugin],
})
export class LimitsModule {}
