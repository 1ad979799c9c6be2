import PgBoss from 'pg-boss';

export interface PolledQueueOptions<J extends object> {
  connectionString: string;
  /** The queue's name, also the connection's application name. */
  name: string;
  /** Tries after the first, with exponential backoff from `retryDelaySeconds`. */
  retryLimit: number;
  retryDelaySeconds: number;
  /** A job's lease: a process that dies holding it gives it back when this runs out. */
  expireInSeconds: number;
  /** How often `poll` looks for new work. */
  pollMs: number;
  /** How long `stop` waits for running jobs. */
  stopTimeoutMs: number;
  /** Finds new work and queues it with `send`; overlapping calls are skipped, not queued. */
  poll: (send: (job: J, singletonKey: string) => Promise<void>) => Promise<unknown>;
  /** Does one job; a throw makes pg-boss try it again later, within the retry limit. */
  run: (job: J) => Promise<void>;
  /** Where failures of the poll or the queue are reported (they never stop the loop). */
  warn: (message: string) => void;
}

/**
 * Work found by polling and done as jobs on the app's Postgres queue (pg-boss, in its own
 * `pgboss` schema): a timer calls `poll`, which queues jobs (a singleton key makes repeats
 * harmless); pg-boss hands each job to one process at a time, retries failures with backoff up
 * to the limit, and takes back the jobs of a process that died. Several app processes can run
 * one each.
 */
export class PolledQueue<J extends object> {
  private boss: PgBoss | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<unknown> | null = null;

  constructor(private readonly options: PolledQueueOptions<J>) {}

  async start(): Promise<void> {
    const o = this.options;
    const boss = new PgBoss({ connectionString: o.connectionString, max: 2, application_name: `hindsight-${o.name}`, schedule: false });
    boss.on('error', (error) => o.warn(`queue: ${error.message}`));
    await boss.start();
    await boss.createQueue(o.name, { name: o.name, retryLimit: o.retryLimit, retryDelay: o.retryDelaySeconds, retryBackoff: true, expireInSeconds: o.expireInSeconds });
    await boss.work<J>(o.name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
      if (job) await o.run(job.data);
    });
    this.boss = boss;
    this.timer = setInterval(() => void this.poll(), o.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling?.catch(() => undefined);
    const boss = this.boss;
    this.boss = null;
    await boss?.stop({ graceful: true, timeout: this.options.stopTimeoutMs, wait: true });
  }

  /** One look for new work now (the timer calls it too); resolves when its jobs are queued. */
  poll(): Promise<unknown> {
    if (this.polling || !this.boss) return this.polling ?? Promise.resolve(0);
    const boss = this.boss;
    const send = async (job: J, singletonKey: string) => {
      await boss.send(this.options.name, job, { singletonKey });
    };
    this.polling = this.options
      .poll(send)
      .catch((error: unknown) => this.options.warn(`looking for work failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.polling = null;
      });
    return this.polling;
  }
}
