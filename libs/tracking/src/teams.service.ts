import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { appendAuditEvents } from './audit-log';
import type { Actor } from './tracking.types';
import { inWriteTransaction } from './write-transaction';

const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}$/;

export interface TeamRecord {
  id: string;
  name: string;
  createdBy: string;
  createdAt: Date;
  version: number;
}

/** A follow-up's owner as people read it. */
export interface FollowUpOwner {
  kind: 'account' | 'team' | 'text';
  name: string;
}

export interface TeamMemberRecord {
  name: string;
  addedAt: Date;
}

export function checkTeamName(name: string, field = 'name'): string {
  const trimmed = name.trim();
  if (!NAME.test(trimmed)) throw AppError.badField(field, 'expected 1 to 64 letters, digits, spaces, dots, dashes, underscores or @, starting with a letter or digit');
  return trimmed;
}

/**
 * Teams of accounts, which can own follow-ups. Admins create and delete teams and change their
 * members (the API enforces the role; the CLI `npm run team` is for operators). Every change is
 * audited (entity `team`, keyed by the team's name) in the transaction that makes it; membership
 * changes bump the team's version.
 */
@Injectable()
export class TeamsService {
  constructor(private readonly prisma: PrismaService) {}

  async create(name: string, actor: Actor): Promise<TeamRecord> {
    const teamName = checkTeamName(name, 'input.name');
    return inWriteTransaction(this.prisma, async (tx) => {
      // Names are unique regardless of case: concurrent creates take turns, so the check holds.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('hindsight:team-names'))`;
      const taken = await tx.team.findFirst({ where: { name: { equals: teamName, mode: 'insensitive' } }, select: { name: true } });
      if (taken) throw new AppError('CONFLICT', `A team named "${taken.name}" already exists.`, { name: taken.name });
      const team = await tx.team.create({ data: { name: teamName, createdBy: actor.name } });
      await appendAuditEvents(tx, actor, team.createdAt, null, [{ entity: 'team', entityKey: team.name, action: 'create', to: { name: team.name }, version: team.version }]);
      return team;
    });
  }

  /** Deletes a team; follow-ups it owned keep no owner (the audit trail names the team). */
  async delete(name: string, actor: Actor): Promise<TeamRecord> {
    return inWriteTransaction(this.prisma, async (tx) => {
      const team = await this.byName(tx, name, 'input.team');
      const members = await tx.teamMember.findMany({ where: { teamId: team.id }, select: { account: { select: { name: true } } } });
      // Follow-ups the team owned lose their owner here, each as a change of its own (a new
      // version and an audit event), not silently through the foreign key.
      const orphaned = await tx.$queryRaw<{ id: string; incidentId: string; key: string; version: number }[]>`
        UPDATE "Actionable" SET "ownerTeamId" = NULL, "version" = "version" + 1, "updatedAt" = now()
        WHERE "ownerTeamId" = ${team.id}::uuid
        RETURNING "id"::text AS "id", "incidentId"::text AS "incidentId", "key", "version"`;
      await tx.team.delete({ where: { id: team.id } });
      const at = new Date();
      await appendAuditEvents(tx, actor, at, null, [
        { entity: 'team', entityKey: team.name, action: 'delete', from: { name: team.name, members: members.map((m) => m.account.name).sort() }, version: team.version },
        ...orphaned.map((a) => ({
          entity: 'actionable' as const,
          entityKey: a.key,
          incidentId: a.incidentId,
          actionableId: a.id,
          action: 'update' as const,
          field: 'ownerTeam',
          from: team.name,
          to: null,
          version: a.version,
        })),
      ]);
      return team;
    });
  }

  async addMember(teamName: string, accountName: string, actor: Actor): Promise<TeamRecord> {
    return this.changeMembers(teamName, accountName, 'add', actor);
  }

  async removeMember(teamName: string, accountName: string, actor: Actor): Promise<TeamRecord> {
    return this.changeMembers(teamName, accountName, 'remove', actor);
  }

  private async changeMembers(teamName: string, accountName: string, op: 'add' | 'remove', actor: Actor): Promise<TeamRecord> {
    return inWriteTransaction(this.prisma, async (tx) => {
      // Locks the team row: concurrent membership changes apply one after the other.
      const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT "id"::text AS id FROM "Team" WHERE lower("name") = lower(${teamName.trim()}) FOR UPDATE`;
      if (!locked) throw AppError.notFound('Team', teamName, 'input.team');
      const team = await tx.team.findUniqueOrThrow({ where: { id: locked.id } });
      const account = await tx.account.findUnique({ where: { name: accountName.trim() }, select: { id: true, name: true } });
      if (!account) throw AppError.notFound('Account', accountName, 'input.account');
      const before = (await tx.teamMember.findMany({ where: { teamId: team.id }, select: { account: { select: { name: true } } } })).map((m) => m.account.name).sort();
      const isMember = before.includes(account.name);
      if (op === 'add' ? isMember : !isMember) return team;
      if (op === 'add') await tx.teamMember.create({ data: { teamId: team.id, accountId: account.id } });
      else await tx.teamMember.delete({ where: { teamId_accountId: { teamId: team.id, accountId: account.id } } });
      const updated = await tx.team.update({ where: { id: team.id }, data: { version: { increment: 1 } } });
      const after = op === 'add' ? [...before, account.name].sort() : before.filter((n) => n !== account.name);
      await appendAuditEvents(tx, actor, new Date(), null, [{ entity: 'team', entityKey: team.name, action: 'update', field: 'members', from: before, to: after, version: updated.version }]);
      return updated;
    });
  }

  /** Every team by name (teams are few: the API pages this list in memory). */
  list(): Promise<TeamRecord[]> {
    return this.prisma.team.findMany({ orderBy: { name: 'asc' } });
  }

  async findByName(name: string): Promise<TeamRecord | null> {
    return this.prisma.team.findFirst({ where: { name: { equals: name.trim(), mode: 'insensitive' } } });
  }

  /** Members of a team by name, with when they joined. */
  /** The members of each of these teams, by name, in one statement. */
  async membersOf(teamIds: readonly string[]): Promise<Map<string, TeamMemberRecord[]>> {
    const rows = await this.prisma.teamMember.findMany({
      where: { teamId: { in: [...teamIds] } },
      select: { teamId: true, addedAt: true, account: { select: { name: true } } },
      orderBy: { account: { name: 'asc' } },
    });
    const out = new Map<string, TeamMemberRecord[]>(teamIds.map((id) => [id, []]));
    for (const r of rows) out.get(r.teamId)?.push({ name: r.account.name, addedAt: r.addedAt });
    return out;
  }

  /** Who owns each of these follow-ups: an account, a team, or free text; absent when nobody does. */
  async ownersOf(actionableIds: readonly string[]): Promise<Map<string, FollowUpOwner>> {
    const out = new Map<string, FollowUpOwner>();
    for (const r of await this.ownerRows(actionableIds)) {
      if (r.accountName) out.set(r.id, { kind: 'account', name: r.accountName });
      else if (r.teamName) out.set(r.id, { kind: 'team', name: r.teamName });
      else if (r.owner) out.set(r.id, { kind: 'text', name: r.owner });
    }
    return out;
  }

  /** The three owner columns of follow-ups with the account's and team's names, in one statement. */
  async ownerRows(actionableIds: readonly string[]): Promise<{ id: string; owner: string | null; teamId: string | null; accountName: string | null; teamName: string | null }[]> {
    if (actionableIds.length === 0) return [];
    return this.prisma.$queryRaw`
      SELECT a."id"::text AS id, a."owner", a."ownerTeamId"::text AS "teamId", ac."name" AS "accountName", tm."name" AS "teamName"
      FROM "Actionable" a LEFT JOIN "Account" ac ON ac."id" = a."ownerAccountId" LEFT JOIN "Team" tm ON tm."id" = a."ownerTeamId"
      WHERE a."id" = ANY(${[...actionableIds]}::uuid[])`;
  }

  /** The accounts (enabled ones) and teams a follow-up can be given to, by name. */
  async ownerChoices(): Promise<{ accounts: string[]; teams: string[] }> {
    const [accounts, teams] = await Promise.all([
      this.prisma.account.findMany({ where: { disabledAt: null }, select: { name: true }, orderBy: { name: 'asc' } }),
      this.prisma.team.findMany({ select: { name: true }, orderBy: { name: 'asc' } }),
    ]);
    return { accounts: accounts.map((a) => a.name), teams: teams.map((t) => t.name) };
  }

  /** Teams an account belongs to, by name. */
  async teamsOf(accountId: string): Promise<TeamRecord[]> {
    return this.prisma.team.findMany({ where: { members: { some: { accountId } } }, orderBy: { name: 'asc' } });
  }

  private async byName(tx: Parameters<Parameters<PrismaService['$transaction']>[0]>[0], name: string, field: string): Promise<TeamRecord> {
    const team = await tx.team.findFirst({ where: { name: { equals: name.trim(), mode: 'insensitive' } } });
    if (!team) throw AppError.notFound('Team', name, field);
    return team;
  }
}
