import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PolledQueue } from '@hindsight/jobs';
import { PrismaService } from '@hindsight/db';
import { takeNotices } from './audit-feed';
import type { Notice } from './notice';
import { NOTIFICATION_OPTIONS, type NotificationOptions } from './notification-options';
import { signBody } from './webhook-signature';

export const NOTIFICATION_QUEUE = 'notifications';

interface DeliveryJob {
  subscriber: string;
  notice: Notice;
}

/**
 * Signed webhooks on follow-up changes and newly overdue follow-ups. A poll reads the audit trail
 * (see audit-feed.ts) and queues one delivery per notice and subscriber on pg-boss, which carries
 * the retries (with backoff, up to a retry budget) and hands each job to one process at a time
 * (a lease that runs out if the process dies). Every delivery has a time limit; a receiver that
 * answers anything but 2xx, or not in time, is tried again later. Deliveries are at least once:
 * the `X-Hindsight-Delivery` header (the notice id) is stable across retries.
 */
@Injectable()
export class NotificationsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Notifications');
  private queue: PolledQueue<DeliveryJob> | null = null;

  constructor(
    private readonly prisma: PrismaService,
    @Inject(NOTIFICATION_OPTIONS) private readonly options: NotificationOptions,
  ) {}

  get enabled(): boolean {
    return this.options.subscribers.length > 0;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    const queue = new PolledQueue<DeliveryJob>({
      connectionString: this.prisma.connectionString,
      name: NOTIFICATION_QUEUE,
      retryLimit: this.options.retryLimit,
      retryDelaySeconds: 1,
      expireInSeconds: Math.max(30, Math.ceil((this.options.timeoutMs * 2) / 1000)),
      pollMs: this.options.pollMs,
      stopTimeoutMs: this.options.timeoutMs + 1_000,
      poll: (send) =>
        takeNotices(this.prisma, this.options.publicUrl, async (notices) => {
          for (const notice of notices) {
            for (const subscriber of this.options.subscribers) await send({ subscriber, notice }, `${notice.id}:${subscriber}`);
          }
        }),
      run: (job) => this.deliver(job),
      warn: (message) => this.logger.warn(message),
    });
    await queue.start();
    this.queue = queue;
  }

  async onApplicationShutdown(): Promise<void> {
    const queue = this.queue;
    this.queue = null;
    await queue?.stop();
  }

  /** One read of the trail now (the timer reads it too); overlapping reads are skipped. */
  poll(): Promise<unknown> {
    return this.queue?.poll() ?? Promise.resolve(0);
  }

  private async deliver({ subscriber, notice }: DeliveryJob): Promise<void> {
    const body = JSON.stringify(notice);
    const res = await fetch(subscriber, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'hindsight-notifications',
        'x-hindsight-event': notice.type,
        'x-hindsight-delivery': notice.id,
        'x-hindsight-signature-256': signBody(this.options.secret, body),
      },
      body,
      signal: AbortSignal.timeout(this.options.timeoutMs),
      redirect: 'error',
    });
    // Drain the body so the connection can be reused; its content is not ours to read.
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) throw new Error(`${subscriber} answered ${res.status} to ${notice.id}`);
  }
}
