import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { AppError } from '@hindsight/domain';
import { ACCESS_OPTIONS, DEFAULT_ACCESS_OPTIONS, type AccessOptions } from './access-options';
import type { Principal, Role } from './tracking.types';

/** 32 random bytes, base64url: what the session cookie carries. */
const SESSION_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** Like tokens' last use: a minute is precise enough for an idle expiry counted in minutes or hours. */
const LAST_USED_RESOLUTION_MS = 60_000;

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two synchroniser tokens. */
export function sameCsrfToken(expected: string, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(sent, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface StartedSession {
  /** The cookie value; only its hash is stored. */
  token: string;
  expiresAt: Date;
}

/**
 * Sessions of people signed in on the pages, stored in Postgres (so every process of a
 * deployment sees them and signing out is immediate). Each session has an idle and an absolute
 * expiry and a synchroniser token that every form it submits must carry. Any identity source
 * (the password form today, an OIDC callback later) ends in `start(accountId)`.
 */
@Injectable()
export class SessionsService {
  private readonly options: AccessOptions;
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly prisma: PrismaService,
    @Optional() @Inject(ACCESS_OPTIONS) options?: AccessOptions,
  ) {
    this.options = options ?? DEFAULT_ACCESS_OPTIONS;
  }

  get maxAgeSeconds(): number {
    return this.options.sessionMaxAgeSeconds;
  }

  async start(accountId: string): Promise<StartedSession> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.options.sessionMaxAgeSeconds * 1000);
    await this.prisma.$transaction([
      this.prisma.accountSession.create({
        data: { accountId, tokenHash: sha256(token), csrfToken: randomBytes(32).toString('base64url'), createdAt: now, lastUsedAt: now, expiresAt },
      }),
      this.prisma.account.update({ where: { id: accountId }, data: { lastSignInAt: now } }),
      // Expired sessions of this account go at each sign-in, so the table does not grow without bound.
      this.prisma.accountSession.deleteMany({ where: { accountId, OR: [{ expiresAt: { lt: now } }, { lastUsedAt: { lt: this.idleCutoff(now) } }] } }),
    ]);
    return { token, expiresAt };
  }

  /**
   * The principal a session cookie stands for, with the account's current role (a role change
   * applies at the next request). An unknown, expired or idle session, or a disabled account,
   * is UNAUTHENTICATED.
   */
  async authenticate(token: string): Promise<Principal> {
    if (!SESSION_SHAPE.test(token)) throw expired();
    const now = new Date();
    const row = await this.prisma.accountSession.findUnique({
      where: { tokenHash: sha256(token) },
      select: { id: true, csrfToken: true, lastUsedAt: true, expiresAt: true, account: { select: { id: true, name: true, role: true, disabledAt: true } } },
    });
    if (!row || row.account.disabledAt || row.expiresAt <= now || row.lastUsedAt <= this.idleCutoff(now)) throw expired();
    await this.touch(row.id, now);
    return principalOfAccount(row.account, row.id, row.csrfToken);
  }

  /** Signing out: the session stops working at once. Ending an unknown session is harmless. */
  async end(token: string): Promise<void> {
    if (!SESSION_SHAPE.test(token)) return;
    await this.prisma.accountSession.deleteMany({ where: { tokenHash: sha256(token) } });
  }

  private idleCutoff(now: Date): Date {
    return new Date(now.getTime() - this.options.sessionIdleSeconds * 1000);
  }

  private async touch(sessionId: string, now: Date): Promise<void> {
    const last = this.touched.get(sessionId);
    if (last !== undefined && now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    this.touched.set(sessionId, now.getTime());
    if (this.touched.size > 10_000) this.touched.clear();
    await this.prisma.accountSession.updateMany({ where: { id: sessionId }, data: { lastUsedAt: now } });
  }
}

function expired(): AppError {
  return new AppError('UNAUTHENTICATED', 'Your session has ended (signed out, expired or unknown): sign in again.', { reason: 'SESSION_ENDED' });
}

export function principalOfAccount(account: { id: string; name: string; role: Role }, sessionId: string, csrfToken: string): Principal {
  return { via: 'session', name: account.name, role: account.role, tokenId: null, accountId: account.id, sessionId, csrfToken };
}
