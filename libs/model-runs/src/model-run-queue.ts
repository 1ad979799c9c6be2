import PgBoss from 'pg-boss';

export const MODEL_RUN_QUEUE = 'model-runs';

interface RunJob {
  runId: string;
}

/**
 * A Postgres-backed job queue (pg-boss, in its own `pgboss` schema) that carries model runs from
 * the API to `npm run worker` processes, so several machines can share the load. A job holds only
 * the run's id: the run row is the source of truth, and executing it twice is harmless because
 * a worker first claims the row (`queued` → `running`, with a lease). A worker that dies mid-run
 * leaves a lease that runs out; the runs service's sweep then queues the run again under a new
 * job (the attempt number is part of its singleton key), so the retry does not wait for pg-boss
 * to expire the lost job.
 */
export class ModelRunQueue {
  private readonly boss: PgBoss;
  private started = false;

  constructor(connectionString: string) {
    this.boss = new PgBoss({
      connectionString,
      max: 2,
      application_name: 'hindsight-queue',
      // The run itself is bounded by the engine's wall-time budget; this only reclaims jobs of a
      // worker that died mid-run.
      schedule: false,
    });
    this.boss.on('error', () => undefined);
  }

  async start(): Promise<void> {
    if (this.started) return;
    await this.boss.start();
    await this.boss.createQueue(MODEL_RUN_QUEUE, {
      name: MODEL_RUN_QUEUE,
      // A retry budget, with backoff: a lost worker's job is tried again at most twice.
      retryLimit: 2,
      retryDelay: 2,
      retryBackoff: true,
      expireInSeconds: 300,
    });
    this.started = true;
  }

  async enqueue(runId: string, attempt = 0): Promise<void> {
    await this.start();
    await this.boss.send(MODEL_RUN_QUEUE, { runId } satisfies RunJob, { singletonKey: `${runId}:${attempt}` });
  }

  /** Processes jobs one at a time per call; call it `concurrency` times for parallel work. */
  async work(handler: (runId: string) => Promise<unknown>, concurrency: number): Promise<void> {
    await this.start();
    for (let i = 0; i < concurrency; i++) {
      await this.boss.work<RunJob>(MODEL_RUN_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
        if (job) await handler(job.data.runId);
      });
    }
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({ graceful: true, timeout: 15_000, wait: true });
  }
}
