import { Module } from '@nestjs/common';
import { TeamsService } from '@hindsight/tracking';
import { ActionableOwnerResolver, TeamsResolver } from './teams.resolver';

/** Teams of accounts and follow-ups' owners (accounts, teams, or free text). */
@Module({
  providers: [TeamsService, TeamsResolver, ActionableOwnerResolver],
  exports: [TeamsService],
})
export class TeamsModule {}
