import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { appendAuditEvents } from './audit-log';
import { ROLES, type Actor, type ApiTokenRecord, type Principal, type Role } from './tracking.types';
import { checkNote, inWriteTransaction } from './write-transaction';

export const TOKEN_PREFIX = 'hs_';
/** `hs_` and 32 random bytes in base64url. */
const TOKEN_SHAPE = /^hs_[A-Za-z0-9_-]{43}$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Recording every use would turn reads into writes; a minute is precise enough to spot stale tokens. */
const LAST_USED_RESOLUTION_MS = 60_000;

const PUBLIC_FIELDS = {
  id: true,
  name: true,
  role: true,
  prefix: true,
  createdBy: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

/** SHA-256 of the whole token, hex. Tokens are random, so a fast hash is enough: there is nothing to guess. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * API tokens: created (by the CLI, which prints the token once), listed, revoked, and checked on
 * every request. Only the hash is stored; nothing here logs or returns a token after creation.
 */
@Injectable()
export class ApiTokensService {
  /** When this process last recorded a use of each token. */
  private readonly touched = new Map<string, number>();

  constructor(private readonly prisma: PrismaService) {}

  async create(name: string, role: Role, actor: Actor): Promise<{ token: string; record: ApiTokenRecord }> {
    if (!NAME.test(name)) {
      throw AppError.badField('name', 'expected 1 to 64 letters, digits, dots, dashes, underscores or @, starting with a letter or digit');
    }
    if (!ROLES.includes(role)) throw AppError.badField('role', `expected one of ${ROLES.join(', ')}`);
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    return inWriteTransaction(this.prisma, async (tx) => {
      if (await tx.apiToken.findUnique({ where: { name }, select: { id: true } })) {
        throw new AppError('CONFLICT', `A token named "${name}" already exists (revoked tokens keep their name); choose another name.`, { name });
      }
      const record = await tx.apiToken.create({
        data: { name, role, tokenHash: hashToken(token), prefix: token.slice(0, TOKEN_PREFIX.length + 6), createdBy: actor.name },
        select: PUBLIC_FIELDS,
      });
      await appendAuditEvents(tx, actor, record.createdAt, null, [
        { entity: 'api_token', entityKey: name, action: 'create', to: { role, prefix: record.prefix } },
      ]);
      return { token, record };
    });
  }

  list(): Promise<ApiTokenRecord[]> {
    return this.prisma.apiToken.findMany({ select: PUBLIC_FIELDS, orderBy: [{ revokedAt: { sort: 'desc', nulls: 'first' } }, { name: 'asc' }] });
  }

  /** Revoking twice is harmless: the second call returns the token as it is. */
  async revoke(idOrName: string, actor: Actor, note?: string | null): Promise<ApiTokenRecord> {
    const noteText = checkNote(note);
    return inWriteTransaction(this.prisma, async (tx) => {
      const where = UUID.test(idOrName) ? { id: idOrName } : { name: idOrName };
      const token = await tx.apiToken.findUnique({ where, select: PUBLIC_FIELDS });
      if (!token) throw AppError.notFound('API token', idOrName, 'token');
      if (token.revokedAt) return token;
      const now = new Date();
      const updated = await tx.apiToken.updateMany({ where: { id: token.id, revokedAt: null }, data: { revokedAt: now } });
      if (updated.count === 1) {
        await appendAuditEvents(tx, actor, now, noteText, [
          { entity: 'api_token', entityKey: token.name, action: 'update', field: 'revokedAt', from: null, to: now.toISOString() },
        ]);
      }
      return tx.apiToken.findUniqueOrThrow({ where: { id: token.id }, select: PUBLIC_FIELDS });
    });
  }

  /** The principal a bearer token stands for; UNAUTHENTICATED for a malformed, unknown or revoked token. */
  async authenticate(token: string): Promise<Principal> {
    if (!TOKEN_SHAPE.test(token)) throw new AppError('UNAUTHENTICATED', 'The bearer token is malformed: expected hs_ followed by 43 characters.');
    const row = await this.prisma.apiToken.findUnique({ where: { tokenHash: hashToken(token) }, select: { id: true, name: true, role: true, revokedAt: true } });
    if (!row || row.revokedAt) throw new AppError('UNAUTHENTICATED', 'The bearer token is unknown or revoked.');
    return { via: 'token', tokenId: row.id, name: row.name, role: row.role, accountId: null, sessionId: null, csrfToken: null };
  }

  /** Records that a token was used, at most once a minute per token (and per process). */
  async touch(principal: Principal): Promise<void> {
    if (principal.via !== 'token') return;
    const now = Date.now();
    const last = this.touched.get(principal.tokenId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    this.touched.set(principal.tokenId, now);
    await this.prisma.$executeRaw`
      UPDATE "ApiToken" SET "lastUsedAt" = now()
      WHERE "id" = ${principal.tokenId}::uuid AND ("lastUsedAt" IS NULL OR "lastUsedAt" < now() - interval '1 minute')`;
  }
}
