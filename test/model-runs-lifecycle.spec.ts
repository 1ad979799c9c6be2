import type { PrismaService } from '@hindsight/db';
import { ModelRunsService, runnerExecutor, type ClosableExecutor, type IncidentModelView, type ModelRunOptions } from '@hindsight/model-runs';
import { ModelErrorCode, ModelRunError, type RunModelInput } from '@hindsight/models';
import { attachQueueModel, QUEUE_MODEL_INCIDENT } from './support/queue-model';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

// A run of 1e9 simulated seconds (about 2e9 events) is still going long after every step of a test
// that needs a run in progress; the test ends it by closing the pool, never by waiting for it.
const ENDLESS = 1e9;
const SHORT = 2_000;
const RUNNING_EVENT_BUDGET = 4e9;

/** Polls (a bounded number of times) until `probe` returns a value. */
async function eventually<T>(probe: () => Promise<T | null | undefined | false>, attempts = 400, pauseMs = 50): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  throw new Error(`condition not met after ${attempts} polls`);
}

/** The real worker-thread pool, with a hook to fail chosen calls the way a crashed worker does. */
function pool(options: Partial<Parameters<typeof runnerExecutor>[0]> = {}) {
  const real = runnerExecutor({ workers: 1, queueSize: 4, runTimeoutMs: 120_000, eventBudget: RUNNING_EVENT_BUDGET, ...options });
  const executor = {
    calls: 0,
    crashNext: false as boolean,
    execute(input: RunModelInput) {
      executor.calls++;
      if (executor.crashNext) {
        executor.crashNext = false;
        return Promise.reject(new ModelRunError(ModelErrorCode.WorkerFailed, 'the model worker failed: the worker exited with code 1'));
      }
      return real.execute(input);
    },
    room: () => real.room(),
    close: () => real.close(),
  } satisfies ClosableExecutor & { calls: number; crashNext: boolean };
  return executor;
}

describe('model runs: leases, shutdown, caching of failures, admission, retention', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  const opened: { service: ModelRunsService; executor: ClosableExecutor }[] = [];

  function service(executor: ClosableExecutor, options: Partial<ModelRunOptions> = {}) {
    const s = new ModelRunsService(prisma, executor, { execution: 'inline', defaultSeed: 1, leaseMs: 2_000, ...options });
    opened.push({ service: s, executor });
    return s;
  }

  async function model(horizon: number, version: string): Promise<IncidentModelView> {
    return attachQueueModel(service(pool()), horizon, version);
  }

  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    prisma = testPrisma(db.url);
  });
  afterEach(async () => {
    for (const { service: s, executor } of opened.splice(0)) {
      await s.drain(0);
      await executor.close();
    }
    await prisma.modelRun.deleteMany({});
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await db.drop();
  });

  it('does not cache a failure that depends on the machine: the same inputs run again and succeed', async () => {
    const view = await model(SHORT, 'crash');
    const executor = pool();
    const runs = service(executor);
    executor.crashNext = true;
    const crashed = await runs.runFor(view, 'as-happened', { rate: 0.5 }, 1);
    expect(crashed).toMatchObject({ status: 'failed', errorCode: 'WORKER_FAILED' });
    const again = await runs.runFor(view, 'as-happened', { rate: 0.5 }, 1);
    expect(again.id).toBe(crashed.id);
    expect(again).toMatchObject({ status: 'succeeded', errorCode: null, error: null });
    expect(executor.calls).toBe(2);
  });

  it('fails a run that exhausts its worker heap alone, does not cache that, and keeps serving', async () => {
    const view = await model(ENDLESS, 'memory');
    const executor = pool({ workerHeapMb: 48, workers: 2 });
    const runs = service(executor);
    // Arrivals at 1000/s into a server of rate 1: waiting visits pile up until the heap is gone.
    const flood = await runs.runFor(view, 'as-happened', { rate: 1000 }, 1);
    expect(flood).toMatchObject({ status: 'failed', errorCode: 'MODEL_RUN_OUT_OF_MEMORY' });
    expect(flood.error).toMatch(/48 MB/);
    const short = await model(SHORT, 'memory-short');
    expect(await runs.runFor(short, 'as-happened', {}, 1)).toMatchObject({ status: 'succeeded' });
    const calls = executor.calls;
    await runs.runFor(view, 'as-happened', { rate: 1000 }, 1);
    expect(executor.calls).toBe(calls + 1);
  });

  it('caches a deterministic failure (event budget, oversized result) as the answer for its inputs', async () => {
    const view = await model(SHORT, 'deterministic');
    const executor = pool({ eventBudget: 1_000 });
    const runs = service(executor);
    const first = await runs.runFor(view, 'as-happened', { rate: 0.7 }, 1);
    expect(first).toMatchObject({ status: 'failed', errorCode: 'EVENT_BUDGET_EXCEEDED' });
    expect((await runs.runFor(view, 'as-happened', { rate: 0.7 }, 1)).id).toBe(first.id);
    expect(executor.calls).toBe(1);

    const capped = service(pool({ maxResultBytes: 1_024 }));
    const big = await capped.runFor(view, 'as-happened', { rate: 0.6 }, 1);
    expect(big).toMatchObject({ status: 'failed', errorCode: 'MODEL_RESULT_TOO_LARGE' });
    expect(big.error).toMatch(/more than the limit of 1024/);
  });

  it('reclaims a run whose process died (lease ran out) and runs it; out of attempts it fails with the reason', async () => {
    const view = await model(SHORT, 'reclaim');
    // A queue-mode API that enqueues nowhere leaves the row queued; the test then writes what a
    // process killed mid-run leaves behind: `running`, held by it, lease in the past.
    const api = service(pool(), { execution: 'queue' });
    api.enqueue = async () => undefined;
    const lost = await api.runFor(view, 'as-happened', { rate: 0.4 }, 1);
    const gone = await api.runFor(view, 'as-happened', { rate: 0.3 }, 1);
    await prisma.modelRun.update({ where: { id: lost.id }, data: { status: 'running', attempts: 1, leaseOwner: 'gone:1', leaseExpiresAt: new Date(Date.now() - 1_000) } });
    await prisma.modelRun.update({ where: { id: gone.id }, data: { status: 'running', attempts: 3, leaseOwner: 'gone:1', leaseExpiresAt: new Date(Date.now() - 1_000) } });

    const next = service(pool(), { maxAttempts: 3 });
    const swept = await next.sweep();
    expect(swept.reclaimed).toEqual([lost.id]);
    expect(swept.failed).toBe(1);
    const done = await eventually(async () => {
      const row = await prisma.modelRun.findUniqueOrThrow({ where: { id: lost.id } });
      return row.status === 'succeeded' || row.status === 'failed' ? row : null;
    });
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, leaseOwner: null, leaseExpiresAt: null });
    const failed = await prisma.modelRun.findUniqueOrThrow({ where: { id: gone.id } });
    expect(failed).toMatchObject({ status: 'failed', errorCode: 'LEASE_EXPIRED', leaseOwner: null });
    expect(failed.error).toMatch(/lost 3 times/);
  });

  it('renews the lease of a run in progress, so no other process reclaims it', async () => {
    const view = await model(ENDLESS, 'heartbeat');
    const runs = service(pool(), { leaseMs: 600 });
    void runs.runFor(view, 'as-happened', {}, 1).catch(() => undefined);
    const first = await eventually(() => prisma.modelRun.findFirst({ where: { status: 'running' } }));
    // Several leases later the lease has moved forward and a sweep finds nothing to reclaim.
    const renewed = await eventually(async () => {
      const row = await prisma.modelRun.findUniqueOrThrow({ where: { id: first.id } });
      return row.leaseExpiresAt!.getTime() > first.leaseExpiresAt!.getTime() + 1_000 ? row : null;
    });
    expect(renewed.status).toBe('running');
    const other = service(pool());
    expect((await other.sweep()).reclaimed).toEqual([]);
  });

  it('at shutdown releases a run it cannot finish in time; the same inputs run again afterwards', async () => {
    const view = await model(ENDLESS, 'drain');
    const executor = pool();
    const runs = service(executor);
    const pending = runs.runFor(view, 'as-happened', {}, 1).catch((e: unknown) => e);
    const running = await eventually(() => prisma.modelRun.findFirst({ where: { status: 'running' } }));
    expect(runs.runsInProgress).toBe(1);
    expect(await runs.drain(0)).toEqual({ finished: 0, interrupted: 1 });
    const released = await prisma.modelRun.findUniqueOrThrow({ where: { id: running.id } });
    expect(released).toMatchObject({ status: 'failed', errorCode: 'RUN_INTERRUPTED', error: 'interrupted by shutdown', leaseOwner: null });
    await expect(runs.runFor(view, 'as-happened', { rate: 0.5 }, 1)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await executor.close();
    await pending;
    // The worker's late "runner closed" did not overwrite the release.
    expect(await prisma.modelRun.findUniqueOrThrow({ where: { id: running.id } })).toMatchObject({ errorCode: 'RUN_INTERRUPTED' });

    // An interrupted run is not the answer: the next process asked the same question claims it again.
    const restarted = service(pool());
    void restarted.runFor(view, 'as-happened', {}, 1).catch(() => undefined);
    const again = await eventually(async () => {
      const row = await prisma.modelRun.findUniqueOrThrow({ where: { id: running.id } });
      return row.status === 'running' ? row : null;
    });
    expect(again).toMatchObject({ attempts: 1, errorCode: null });
    expect(again.leaseOwner).not.toBe(running.leaseOwner);
  });

  it('refuses at once when the inline pool is full, before any database work, and writes nothing', async () => {
    const view = await model(ENDLESS, 'full');
    // A lease of ten minutes: no heartbeat of the run in progress lands inside the count below.
    const runs = service(pool({ workers: 1, queueSize: 0 }), { leaseMs: 600_000 });
    void runs.runFor(view, 'as-happened', {}, 1).catch(() => undefined);
    await eventually(() => prisma.modelRun.findFirst({ where: { status: 'running' } }));
    const before = prisma.statementCount;
    await expect(runs.runFor(view, 'as-happened', { rate: 0.5 }, 1)).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', details: { retryAfterSeconds: 1 } });
    expect(prisma.statementCount - before).toBe(1);
    // Through the API's entry point (runModel) the refusal comes before any statement at all.
    const beforeApi = prisma.statementCount;
    await expect(runs.run({ incidentSlug: QUEUE_MODEL_INCIDENT, scenarioKey: 'as-happened', parameters: { rate: 0.6 } })).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    expect(prisma.statementCount - beforeApi).toBe(0);
    expect(await prisma.modelRun.count()).toBe(1);
  });

  it('counts a run in progress once against the pool, so its room is what the settings say', async () => {
    const view = await model(ENDLESS, 'room');
    const runs = service(pool({ workers: 1, queueSize: 1 }));
    const ask = (rate: number) => void runs.run({ incidentSlug: QUEUE_MODEL_INCIDENT, scenarioKey: 'as-happened', parameters: { rate } }).catch(() => undefined);
    ask(0.5);
    await eventually(() => prisma.modelRun.findFirst({ where: { status: 'running' } }));
    // One worker busy, one wait place free: the second run is taken (it waits), the third refused.
    ask(0.6);
    await eventually(async () => (await prisma.modelRun.count({ where: { status: 'running' } })) === 2);
    await expect(runs.run({ incidentSlug: QUEUE_MODEL_INCIDENT, scenarioKey: 'as-happened', parameters: { rate: 0.7 } })).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
  });

  it('in queue mode bounds the runs waiting for a worker and refuses beyond it at once', async () => {
    const view = await model(SHORT, 'pending');
    const api = service(pool(), { execution: 'queue', maxPending: 2 });
    const sent: string[] = [];
    api.enqueue = async (runId) => void sent.push(runId);
    const a = await api.runFor(view, 'as-happened', { rate: 0.1 }, 1);
    await api.runFor(view, 'as-happened', { rate: 0.2 }, 1);
    const refused = await api.runFor(view, 'as-happened', { rate: 0.3 }, 1).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'TOO_MANY_REQUESTS', details: { maxPending: 2 } });
    expect(sent).toHaveLength(2);
    expect(await prisma.modelRun.count({ where: { status: 'queued' } })).toBe(2);
    // A question already asked is still answered (with its queued run).
    expect((await api.runFor(view, 'as-happened', { rate: 0.1 }, 1)).id).toBe(a.id);
  });

  it('limits the runs one client stores per window, and still answers its stored ones', async () => {
    const view = await model(SHORT, 'quota');
    const runs = service(pool(), { quotaRuns: 2, quotaWindowSeconds: 600 });
    const first = await runs.runFor(view, 'as-happened', { rate: 0.1 }, 1, 'address:10.0.0.1');
    await runs.runFor(view, 'as-happened', { rate: 0.2 }, 1, 'address:10.0.0.1');
    const refused = await runs.runFor(view, 'as-happened', { rate: 0.3 }, 1, 'address:10.0.0.1').catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'TOO_MANY_REQUESTS', details: { quota: 2, windowSeconds: 600 } });
    expect((refused as { details: { retryAfterSeconds: number } }).details.retryAfterSeconds).toBeGreaterThan(0);
    expect((await runs.runFor(view, 'as-happened', { rate: 0.1 }, 1, 'address:10.0.0.1')).id).toBe(first.id);
    expect(await runs.runFor(view, 'as-happened', { rate: 0.3 }, 1, 'address:10.0.0.2')).toMatchObject({ status: 'succeeded' });
    const stored = await prisma.modelRun.findMany({ select: { clientKey: true } });
    expect(stored.every((r) => r.clientKey === null || /^[0-9a-f]{32}$/.test(r.clientKey))).toBe(true);
  });

  it('keeps the newest unpinned runs of a scenario and every pinned one', async () => {
    const view = await model(SHORT, 'retention');
    const runs = service(pool(), { retainPerScenario: 2 });
    const pinned = await runs.runFor(view, 'as-happened', {}, 1);
    const whatIfs = [];
    for (const rate of [0.1, 0.2, 0.3, 0.4]) whatIfs.push(await runs.runFor(view, 'as-happened', { rate }, 1));
    const kept = await prisma.modelRun.findMany({ orderBy: { queuedAt: 'asc' }, select: { id: true } });
    expect(kept.map((r) => r.id).sort()).toEqual([pinned.id, whatIfs[2]!.id, whatIfs[3]!.id].sort());
    expect((await runs.latestRuns([view.incidentId])).get(`${view.incidentId}:as-happened`)?.id).toBe(pinned.id);
  });
});
