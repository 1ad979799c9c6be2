import { Body, Controller, Headers, HttpCode, Inject, Post, Req, type RawBodyRequest } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '@hindsight/domain';
import { verifyBody } from '@hindsight/notifications';
import { TRACKER_SYNC_OPTIONS, TrackerSyncService, type TrackerSyncOptions } from '@hindsight/tracker-sync';
import { Public } from '../auth/roles.decorator';

interface GithubIssuesEvent {
  action?: string;
  issue?: { number?: number };
  repository?: { name?: string; owner?: { login?: string } };
}

interface JiraIssueEvent {
  webhookEvent?: string;
  issue?: { key?: string; fields?: { status?: { statusCategory?: { key?: string } } } };
}

/**
 * Where GitHub and Jira tell Hindsight that a linked issue was closed or reopened. Open to the
 * network (trackers send no API token) and trusted only with a valid signature: an HMAC-SHA256 of
 * the exact body with the webhook's secret (`X-Hub-Signature-256` from GitHub, `X-Hub-Signature`
 * from Jira). Anything unsigned, wrongly signed, or sent while the tracker is not configured is
 * refused with UNAUTHENTICATED and changes nothing.
 */
@Controller('webhooks')
@Public()
export class TrackerWebhooksController {
  constructor(
    private readonly sync: TrackerSyncService,
    @Inject(TRACKER_SYNC_OPTIONS) private readonly options: TrackerSyncOptions,
  ) {}

  @Post('github')
  @HttpCode(202)
  async github(@Req() req: RawBodyRequest<Request>, @Headers('x-github-event') event: string | undefined, @Headers('x-hub-signature-256') signature: string | undefined, @Body() body: GithubIssuesEvent) {
    this.checkSignature(this.options.github?.webhookSecret ?? null, req, signature, 'GitHub');
    if (event === 'ping') return { accepted: 'ping' };
    const owner = body.repository?.owner?.login;
    const repo = body.repository?.name;
    const number = body.issue?.number;
    if (event !== 'issues' || (body.action !== 'closed' && body.action !== 'reopened') || !owner || !repo || typeof number !== 'number') return { moved: 0 };
    const moved = await this.sync.apply({ tracker: 'github', owner, repo, number }, body.action === 'closed' ? 'closed' : 'open');
    return { moved };
  }

  @Post('jira')
  @HttpCode(202)
  async jira(@Req() req: RawBodyRequest<Request>, @Headers('x-hub-signature') signature: string | undefined, @Body() body: JiraIssueEvent) {
    this.checkSignature(this.options.jira?.webhookSecret ?? null, req, signature, 'Jira');
    const key = body.issue?.key;
    if (body.webhookEvent !== 'jira:issue_updated' || !key) return { moved: 0 };
    const category = body.issue?.fields?.status?.statusCategory?.key;
    const moved = await this.sync.apply({ tracker: 'jira', key }, category === 'done' ? 'closed' : 'open');
    return { moved };
  }

  private checkSignature(secret: string | null, req: RawBodyRequest<Request>, signature: string | undefined, tracker: string): void {
    const raw = req.rawBody?.toString('utf8');
    // The same `sha256=<HMAC>` scheme Hindsight signs its own webhooks with, compared in constant time.
    const valid = secret !== null && raw !== undefined && verifyBody(secret, raw, signature);
    if (!valid) throw new AppError('UNAUTHENTICATED', `The ${tracker} webhook's signature is missing or does not match its secret.`);
  }
}
