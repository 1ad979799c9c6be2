import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import bcrypt from 'bcryptjs';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { encodeCursor, pageWindow, type Page, type PageWindow } from '@hindsight/incidents';
import { ACCESS_OPTIONS, DEFAULT_ACCESS_OPTIONS, type AccessOptions } from './access-options';
import { appendAuditEvents } from './audit-log';
import { ROLES, type AccountRecord, type Actor, type Role } from './tracking.types';
import { inWriteTransaction } from './write-transaction';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
/** bcrypt reads at most 72 bytes; a longer password would be silently cut, so it is refused. */
const MAX_PASSWORD_BYTES = 72;
const MIN_PASSWORD_LENGTH = 12;

const PUBLIC_FIELDS = { id: true, name: true, role: true, createdBy: true, createdAt: true, lastSignInAt: true, disabledAt: true } as const;

/** A random password of 20 URL-safe characters (120 bits), shown once to the admin who made it. */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

export function checkPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw AppError.badField(field, `expected at least ${MIN_PASSWORD_LENGTH} characters`);
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) throw AppError.badField(field, `expected at most ${MAX_PASSWORD_BYTES} bytes (bcrypt ignores the rest)`);
}

/**
 * People's accounts, managed by an admin (CLI or API): create, disable, enable, reset the
 * password, change the role. Passwords are hashed with bcrypt (bcryptjs, pure JavaScript, so
 * nothing native is installed); disabling an account or resetting its password ends its sessions.
 */
@Injectable()
export class AccountsService {
  private readonly options: AccessOptions;
  /** Compared against when the name is unknown, so a wrong name costs as long as a wrong password; made on first use, off the start-up path. */
  private decoyHash: Promise<string> | null = null;

  constructor(
    private readonly prisma: PrismaService,
    @Optional() @Inject(ACCESS_OPTIONS) options?: AccessOptions,
  ) {
    this.options = options ?? DEFAULT_ACCESS_OPTIONS;
  }

  /** Creates an account; without a password one is generated. The password is returned once. */
  async create(name: string, role: Role, actor: Actor, password?: string | null): Promise<{ account: AccountRecord; password: string }> {
    if (!NAME.test(name)) {
      throw AppError.badField('name', 'expected 1 to 64 letters, digits, dots, dashes, underscores or @, starting with a letter or digit');
    }
    if (!ROLES.includes(role)) throw AppError.badField('role', `expected one of ${ROLES.join(', ')}`);
    const secret = password ?? generatePassword();
    checkPassword(secret);
    const passwordHash = await bcrypt.hash(secret, this.options.passwordHashRounds);
    const account = await inWriteTransaction(this.prisma, async (tx) => {
      if (await tx.account.findUnique({ where: { name }, select: { id: true } })) {
        throw new AppError('CONFLICT', `An account named "${name}" already exists (disabled accounts keep their name).`, { name });
      }
      const record = await tx.account.create({ data: { name, role, passwordHash, createdBy: actor.name }, select: PUBLIC_FIELDS });
      await appendAuditEvents(tx, actor, record.createdAt, null, [{ entity: 'account', entityKey: name, action: 'create', to: { role } }]);
      return record;
    });
    return { account, password: secret };
  }

  list(): Promise<AccountRecord[]> {
    return this.prisma.account.findMany({ select: PUBLIC_FIELDS, orderBy: [{ disabledAt: { sort: 'desc', nulls: 'first' } }, { name: 'asc' }] });
  }

  /** Accounts by name, keyset-paginated both ways (first/after or last/before, at most 100 a page). Names are unique. */
  async page(args: PageWindow): Promise<Page<AccountRecord>> {
    const { size, backward, after, before } = pageWindow(args, 'NAME');
    const name = { ...(after ? { gt: after.value } : {}), ...(before ? { lt: before.value } : {}) };
    const rows = await this.prisma.account.findMany({ select: PUBLIC_FIELDS, where: { name }, orderBy: { name: backward ? 'desc' : 'asc' }, take: size + 1 });
    const more = rows.length > size;
    const nodes = rows.slice(0, size);
    if (backward) nodes.reverse();
    let counted: Promise<number> | null = null;
    const count = () => (counted ??= this.prisma.account.count());
    return {
      nodes,
      cursors: nodes.map((a) => encodeCursor({ order: 'NAME', value: a.name, id: a.id })),
      // Accounts are few: the estimate is the exact count.
      count,
      estimate: count,
      hasNextPage: (!backward && more) || before !== null,
      hasPreviousPage: (backward && more) || after !== null,
    };
  }

  async find(name: string): Promise<AccountRecord | null> {
    return this.prisma.account.findUnique({ where: { name }, select: PUBLIC_FIELDS });
  }

  setRole(name: string, role: Role, actor: Actor): Promise<AccountRecord> {
    return this.update(name, { role }, actor);
  }

  /** Disabled accounts cannot sign in, and their sessions end at once. Idempotent. */
  setDisabled(name: string, disabled: boolean, actor: Actor): Promise<AccountRecord> {
    return this.update(name, { disabled }, actor);
  }

  /** Role and enabled state in one transaction; unchanged values write nothing. */
  async update(name: string, changes: { role?: Role | null; disabled?: boolean | null }, actor: Actor): Promise<AccountRecord> {
    const { role, disabled } = changes;
    if (role != null && !ROLES.includes(role)) throw AppError.badField('role', `expected one of ${ROLES.join(', ')}`);
    return this.change(name, actor, async (tx, current) => {
      const events: { field: string; from: string | null; to: string | null }[] = [];
      if (role != null && current.role !== role) {
        await tx.account.update({ where: { id: current.id }, data: { role } });
        events.push({ field: 'role', from: current.role, to: role });
      }
      if (disabled != null && (current.disabledAt !== null) !== disabled) {
        const now = new Date();
        await tx.account.update({ where: { id: current.id }, data: { disabledAt: disabled ? now : null } });
        if (disabled) await tx.accountSession.deleteMany({ where: { accountId: current.id } });
        events.push({ field: 'disabledAt', from: current.disabledAt?.toISOString() ?? null, to: disabled ? now.toISOString() : null });
      }
      return events;
    });
  }

  /** A new password (generated unless given), returned once; every session of the account ends. */
  async resetPassword(name: string, actor: Actor, password?: string | null): Promise<{ account: AccountRecord; password: string }> {
    const secret = password ?? generatePassword();
    checkPassword(secret);
    const passwordHash = await bcrypt.hash(secret, this.options.passwordHashRounds);
    const account = await this.change(name, actor, async (tx, current) => {
      await tx.account.update({ where: { id: current.id }, data: { passwordHash } });
      await tx.accountSession.deleteMany({ where: { accountId: current.id } });
      // The hash itself never goes into the trail.
      return [{ field: 'password', from: null, to: 'reset' }];
    });
    return { account, password: secret };
  }

  /**
   * The account a name and password stand for, or null. Unknown names, wrong passwords and
   * disabled accounts all answer null after one bcrypt comparison, so timing tells them apart
   * no better than the answer does.
   */
  async verify(name: string, password: string): Promise<{ id: string; name: string; role: Role } | null> {
    const row = NAME.test(name) ? await this.prisma.account.findUnique({ where: { name }, select: { id: true, name: true, role: true, passwordHash: true, disabledAt: true } }) : null;
    this.decoyHash ??= bcrypt.hash(generatePassword(), this.options.passwordHashRounds);
    const ok = await bcrypt.compare(password.slice(0, 256), row?.passwordHash ?? (await this.decoyHash));
    if (!row || !ok || row.disabledAt) return null;
    return { id: row.id, name: row.name, role: row.role };
  }

  private async change(
    name: string,
    actor: Actor,
    work: (tx: Parameters<Parameters<PrismaService['$transaction']>[0]>[0], current: AccountRecord) => Promise<false | { field: string; from: string | null; to: string | null }[]>,
  ): Promise<AccountRecord> {
    return inWriteTransaction(this.prisma, async (tx) => {
      const rows = await tx.$queryRaw<{ id: string }[]>`SELECT "id"::text AS id FROM "Account" WHERE "name" = ${name} FOR UPDATE`;
      if (rows.length === 0) throw AppError.notFound('Account', name, 'name');
      const current = await tx.account.findUniqueOrThrow({ where: { name }, select: PUBLIC_FIELDS });
      const changes = await work(tx, current);
      if (changes && changes.length > 0) {
        await appendAuditEvents(tx, actor, new Date(), null, changes.map((c) => ({ entity: 'account', entityKey: name, action: 'update', field: c.field, from: c.from, to: c.to })));
      }
      return tx.account.findUniqueOrThrow({ where: { name }, select: PUBLIC_FIELDS });
    });
  }
}
