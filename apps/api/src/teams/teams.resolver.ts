import { Args, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import DataLoader from 'dataloader';
import { TeamsService, type Principal, type TeamMemberRecord, type TeamRecord } from '@hindsight/tracking';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { RequireRole } from '../auth/roles.decorator';
import { AllLoaders, type GqlContext } from '../common/gql-context';
import { listConnection } from '../common/list-connection';
import type { RequestLoaders } from '../common/request-loaders';
import { Actionable } from '../incidents/types/incident.types';
import { toGlobalId } from '../node/global-id';
import {
  ActionableOwner,
  AddTeamMemberInput,
  AddTeamMemberPayload,
  RemoveTeamMemberInput,
  RemoveTeamMemberPayload,
  CreateTeamInput,
  CreateTeamPayload,
  DeleteTeamInput,
  DeleteTeamPayload,
  Team,
  TeamConnection,
  TeamMemberConnection,
} from './team.types';

/** Teams over the API: anyone who may read sees teams and members; admins change them. */
@Resolver(() => Team)
export class TeamsResolver {
  constructor(private readonly teams: TeamsService) {}

  @Query(() => TeamConnection, { name: 'teams', description: 'Teams by name. Pages both ways: first/after or last/before (at most 100; 20 by default).' })
  async teamConnection(
    @Args('first', { type: () => Int, nullable: true, description: 'At most 100; 20 by default.' }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true, description: 'At most 100.' }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ) {
    return listConnection(await this.teams.list(), (t) => t.name, 'NAME', { first, after, last, before });
  }

  @ResolveField(() => TeamMemberConnection, { description: 'Members by name. Pages both ways (at most 100; 20 by default).' })
  async members(
    @Parent() team: TeamRecord,
    @AllLoaders() loaders: RequestLoaders,
    @Args('first', { type: () => Int, nullable: true }) first: number | null,
    @Args('after', { type: () => String, nullable: true }) after: string | null,
    @Args('last', { type: () => Int, nullable: true }) last: number | null,
    @Args('before', { type: () => String, nullable: true }) before: string | null,
  ) {
    const members = await loaders.of(MemberLoader, () => new MemberLoader(this.teams)).load(team.id);
    return listConnection(members, (m) => m.name, 'NAME', { first, after, last, before });
  }

  @RequireRole('admin')
  @Mutation(() => CreateTeamPayload, { description: 'Creates a team with no members. Admin only.' })
  async createTeam(@Args('input') input: CreateTeamInput, @CurrentPrincipal() actor: Principal) {
    return { team: await this.teams.create(input.name, actor) };
  }

  @RequireRole('admin')
  @Mutation(() => DeleteTeamPayload, { description: 'Deletes a team; follow-ups it owned are left without an owner (the audit trail names it). Admin only.' })
  async deleteTeam(@Args('input') input: DeleteTeamInput, @CurrentPrincipal() actor: Principal) {
    return { deletedTeamId: toGlobalId('Team', (await this.teams.delete(input.team, actor)).id) };
  }

  @RequireRole('admin')
  @Mutation(() => AddTeamMemberPayload, { description: 'Adds an account to a team (no change if it is a member). Admin only.' })
  async addTeamMember(@Args('input') input: AddTeamMemberInput, @CurrentPrincipal() actor: Principal) {
    return { team: await this.teams.addMember(input.team, input.account, actor) };
  }

  @RequireRole('admin')
  @Mutation(() => RemoveTeamMemberPayload, { description: 'Removes an account from a team (no change if it is not a member). Admin only.' })
  async removeTeamMember(@Args('input') input: RemoveTeamMemberInput, @CurrentPrincipal() actor: Principal) {
    return { team: await this.teams.removeMember(input.team, input.account, actor) };
  }
}

type OwnerRow = Awaited<ReturnType<TeamsService['ownerRows']>>[number];

/** Owners of many actionables in one statement per request. */
class OwnerLoader extends DataLoader<string, OwnerRow | null> {
  constructor(teams: TeamsService) {
    super(async (ids) => {
      const rows = new Map((await teams.ownerRows(ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id) ?? null);
    });
  }
}

/** Members of every team on a page in one statement per request. */
class MemberLoader extends DataLoader<string, TeamMemberRecord[]> {
  constructor(teams: TeamsService) {
    super(async (ids) => {
      const members = await teams.membersOf(ids);
      return ids.map((id) => members.get(id) ?? []);
    });
  }
}

@Resolver(() => Actionable)
export class ActionableOwnerResolver {
  constructor(private readonly teams: TeamsService) {}

  @ResolveField(() => ActionableOwner, { nullable: true, description: 'Who owns it: an account, a team, or free text (imported or older records); null when nobody does.' })
  async ownedBy(a: { id: string }, _args: unknown, { loaders }: GqlContext): Promise<ActionableOwner | null> {
    const row = await loaders.of(OwnerLoader, () => new OwnerLoader(this.teams)).load(a.id);
    if (!row) return null;
    if (row.accountName) return { kind: 'account', name: row.accountName, teamId: null };
    if (row.teamName) return { kind: 'team', name: row.teamName, teamId: toGlobalId('Team', row.teamId!) };
    return row.owner ? { kind: 'text', name: row.owner, teamId: null } : null;
  }
}
