import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import PgBoss from 'pg-boss';
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
  private boss: PgBoss | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<unknown> | null = null;

  constructor(
    private readonly prisma: PrismaService,
    @Inject(NOTIFICATION_OPTIONS) private readonly options: NotificationOptions,
  ) {}

  get enabled(): boolean {
    return this.options.subscribers.length > 0;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    const boss = new PgBoss({ connectionString: this.prisma.connectionString, max: 2, application_name: 'hindsight-notifications', schedule: false });
    boss.on('error', (error) => this.logger.warn(`queue: ${error.message}`));
    await boss.start();
    await boss.createQueue(NOTIFICATION_QUEUE, {
      name: NOTIFICATION_QUEUE,
      retryLimit: this.options.retryLimit,
      retryDelay: 1,
      retryBackoff: true,
      expireInSeconds: Math.max(30, Math.ceil((this.options.timeoutMs * 2) / 1000)),
    });
    await boss.work<DeliveryJob>(NOTIFICATION_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
      if (job) await this.deliver(job.data);
    });
    this.boss = boss;
    this.timer = setInterval(() => void this.poll(), this.options.pollMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling?.catch(() => undefined);
    const boss = this.boss;
    this.boss = null;
    await boss?.stop({ graceful: true, timeout: this.options.timeoutMs + 1_000, wait: true });
  }

  /** One read of the trail; overlapping polls are skipped, not queued. */
  poll(): Promise<unknown> {
    if (this.polling || !this.boss) return this.polling ?? Promise.resolve(0);
    const boss = this.boss;
    this.polling = takeNotices(this.prisma, this.options.publicUrl, async (notices) => {
      for (const notice of notices) {
        for (const subscriber of this.options.subscribers) {
          await boss.send(NOTIFICATION_QUEUE, { subscriber, notice } satisfies DeliveryJob, { singletonKey: `${notice.id}:${subscriber}` });
        }
      }
    })
      .catch((error: unknown) => this.logger.warn(`reading notices failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
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
