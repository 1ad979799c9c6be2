import { randomBytes } from 'node:crypto';
import { Body, Controller, Get, Inject, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { parse as parseCookies } from 'cookie';
import type { CookieOptions, Request, Response } from 'express';
import { AccountsService, ApiTokensService, sameCsrfToken, SessionsService } from '@hindsight/tracking';
import { authenticateRequest, SESSION_COOKIE, sessionCookieOf } from '../../auth/request-principal';
import { Public, RequireRole } from '../../auth/roles.decorator';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { RateLimits } from '../../limits/rate-limits.service';
import { PageErrorFilter } from '../page-error.filter';
import { sendPage } from '../page-response';
import { signInView } from '../views/sign-in.view';

/** Double-submit token of the sign-in form itself (there is no session yet to hold one). */
const SIGN_IN_COOKIE = 'hindsight_sign_in';
const FORM_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Only paths on this site, so the sign-in form cannot be turned into a redirect elsewhere. */
export function safeNext(raw: unknown): string {
  return typeof raw === 'string' && /^\/(?![/\\])[^\s]*$/.test(raw) && raw.length <= 2000 ? raw : '/';
}

/**
 * Signing in and out on the pages. A successful sign-in starts a session stored in Postgres and
 * sets its cookie (HttpOnly, SameSite=Lax, Secure when SESSION_COOKIE_SECURE is on); the same
 * principal mechanism then reads it on every request.
 */
@Controller()
@UseFilters(PageErrorFilter)
export class SignInController {
  constructor(
    private readonly accounts: AccountsService,
    readonly sessions: SessionsService,
    readonly tokens: ApiTokensService,
    private readonly rateLimits: RateLimits,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('sign-in')
  @Public()
  async form(@Query('next') next: unknown, @Query('ended') ended: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = await authenticateRequest(req, this).catch(() => null);
    const message = ended === '1' ? 'Your session has ended. Sign in again to continue.' : undefined;
    sendPage(res, 200, signInView({ next: safeNext(next), formToken: this.formToken(req, res), principal, message }));
  }

  @Post('sign-in')
  @Public()
  async signIn(@Body() body: Record<string, unknown> | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    const next = safeNext(body?.next);
    const name = typeof body?.name === 'string' ? body.name.trim() : '';
    const password = typeof body?.password === 'string' ? body.password : '';
    const sent = parseCookies(req.headers.cookie ?? '')[SIGN_IN_COOKIE];
    if (!sent || !sameCsrfToken(sent, body?._csrf)) {
      sendPage(res, 403, signInView({ next, formToken: this.formToken(req, res), principal: null, name, message: 'The form had expired or came from another site. Please sign in again.' }));
      return;
    }
    await this.rateLimits.consumeSignIn(req.ip ?? req.socket.remoteAddress ?? 'unknown', name);
    const account = name && password ? await this.accounts.verify(name, password) : null;
    if (!account) {
      sendPage(res, 401, signInView({ next, formToken: this.formToken(req, res), principal: null, name, message: 'That name and password do not match an active account.' }));
      return;
    }
    const old = sessionCookieOf(req);
    if (old) await this.sessions.end(old);
    const session = await this.sessions.start(account.id);
    res.cookie(SESSION_COOKIE, session.token, { ...this.cookieOptions(), maxAge: this.sessions.maxAgeSeconds * 1000 });
    res.clearCookie(SIGN_IN_COOKIE, this.cookieOptions());
    res.redirect(303, next);
  }

  /** Ends the session at once (the guard has checked its synchroniser token). */
  @Post('sign-out')
  @RequireRole('viewer')
  async signOut(@Req() req: Request, @Res() res: Response): Promise<void> {
    const token = sessionCookieOf(req);
    if (token) await this.sessions.end(token);
    res.clearCookie(SESSION_COOKIE, this.cookieOptions());
    res.redirect(303, '/sign-in');
  }

  private cookieOptions(): CookieOptions {
    return { httpOnly: true, sameSite: 'lax', secure: this.config.access.secureCookie, path: '/' };
  }

  /** The sign-in form's token: the one its cookie holds, or a new one. */
  private formToken(req: Request, res: Response): string {
    const current = parseCookies(req.headers.cookie ?? '')[SIGN_IN_COOKIE];
    if (current && FORM_TOKEN.test(current)) return current;
    const token = randomBytes(32).toString('base64url');
    res.cookie(SIGN_IN_COOKIE, token, { ...this.cookieOptions(), maxAge: 3_600_000 });
    return token;
  }
}
