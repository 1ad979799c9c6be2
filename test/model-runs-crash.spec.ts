import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { PrismaService, projectRoot } from '@hindsight/db';
import { ModelRunQueue, ModelRunsService, runnerExecutor } from '@hindsight/model-runs';
import { createApp } from '../apps/api/src/bootstrap';
import { loadConfig } from '../apps/api/src/config/app-config';
import { attachQueueModel, QUEUE_MODEL_INCIDENT } from './support/queue-model';
import { createTestDatabase, testPrisma, type TestDatabase } from './support/test-db';

// About 5 million simulated events: seconds of work, so a process killed once the run is seen
// `running` is killed mid-run. Only the order of events matters, never how long they take.
const HORIZON = 3e6;
const LEASE_MS = '1500';

/** Polls (a bounded number of times) until `probe` returns a value. */
async function eventually<T>(what: string, probe: () => Promise<T | null | undefined | false>, attempts = 900, pauseMs = 100): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  throw new Error(`${what}: not seen after ${attempts} polls`);
}

function launch(script: string, args: string[], env: Record<string, string>): ChildProcess & { output: string[] } {
  const child = spawn(process.execPath, [path.join(projectRoot(), 'scripts', script), ...args], {
    cwd: projectRoot(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { output: string[] };
  child.output = [];
  child.stdout!.on('data', (d: Buffer) => child.output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => child.output.push(d.toString()));
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('model runs survive the death of the process running them', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    prisma = testPrisma(db.url);
  });
  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited(child);
    }
    await prisma.onModuleDestroy();
    await db.drop();
  });

  const childEnv = () => ({
    DATABASE_URL: db.url,
    MODEL_WORKERS: '1',
    MODEL_RUN_LEASE_MS: LEASE_MS,
    MODEL_EVENT_BUDGET: '100000000',
    MODEL_RUN_TIMEOUT_MS: '300000',
  });

  it('a queue worker killed mid-run (SIGKILL): another worker reclaims the run and finishes it', async () => {
    // The API side, in queue mode: stores the run and enqueues it.
    const apiPool = runnerExecutor({ workers: 1, queueSize: 1, runTimeoutMs: 300_000, eventBudget: 100_000_000 });
    const api = new ModelRunsService(prisma, apiPool, { execution: 'queue', defaultSeed: 1 });
    const queue = new ModelRunQueue(db.url);
    api.enqueue = (runId, attempt) => queue.enqueue(runId, attempt);
    try {
      const view = await attachQueueModel(api, HORIZON, 'worker-kill');
      const queued = await api.runFor(view, 'as-happened', {}, 1);
      expect(queued.status).toBe('queued');

      const first = launch('cli.js', ['worker'], childEnv());
      children.push(first);
      const running = await eventually('the first worker running the run', async () => {
        const row = await prisma.modelRun.findUniqueOrThrow({ where: { id: queued.id } });
        return row.status === 'running' ? row : null;
      });
      expect(running.leaseOwner).toContain(`:${first.pid}:`);
      first.kill('SIGKILL');
      await exited(first);
      // What the killed worker left: a run still `running`, held by a process that is gone.
      expect(await prisma.modelRun.findUniqueOrThrow({ where: { id: queued.id } })).toMatchObject({ status: 'running', leaseOwner: running.leaseOwner });

      const second = launch('cli.js', ['worker'], childEnv());
      children.push(second);
      const done = await eventually('the run finished by the second worker', async () => {
        const row = await prisma.modelRun.findUniqueOrThrow({ where: { id: queued.id } });
        return row.status === 'succeeded' || row.status === 'failed' ? row : null;
      });
      expect(done).toMatchObject({ status: 'succeeded', attempts: 2, leaseOwner: null, error: null });
      expect(done.simulatedEvents).toBeGreaterThan(1_000_000);
      second.kill('SIGTERM');
      await exited(second);
      expect(second.exitCode).toBe(0);
    } finally {
      await queue.stop();
      await apiPool.close();
    }
  }, 240_000);

  it('an app killed with an inline run in progress (SIGKILL) leaves a lease that the next start reclaims', async () => {
    const setup = new ModelRunsService(prisma, { execute: () => Promise.reject(new Error('unused')) }, { execution: 'inline', defaultSeed: 1 });
    await attachQueueModel(setup, HORIZON, 'app-kill');

    const app = launch('start.js', [], { ...childEnv(), PORT: '0', SEED_ON_START: 'false' });
    children.push(app);
    const port = await eventually('the app listening', async () => /ready on http:\/\/[^:]+:(\d+)/.exec(app.output.join(''))?.[1]);
    void fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `mutation { runModel(input: { incident: "${QUEUE_MODEL_INCIDENT}", scenario: "as-happened", seed: 7 }) { run { id status } } }` }),
    }).catch(() => undefined);
    const running = await eventually('the app running the run', () => prisma.modelRun.findFirst({ where: { status: 'running', seed: 7 } }));
    app.kill('SIGKILL');
    await exited(app);
    const left = await prisma.modelRun.findUniqueOrThrow({ where: { id: running.id } });
    expect(left).toMatchObject({ status: 'running', attempts: 1 });
    expect(left.leaseOwner).toContain(`:${app.pid}:`);
    expect(left.leaseExpiresAt).not.toBeNull();

    let next: INestApplication | null = null;
    try {
      const config = loadConfig({ ...childEnv(), DB_CONNECT_TIMEOUT_MS: '30000' });
      next = await createApp(config, db.url, { logger: ['error'] });
      await next.init();
      const done = await eventually('the run finished after the restart', async () => {
        const row = await prisma.modelRun.findUniqueOrThrow({ where: { id: running.id } });
        return row.status === 'succeeded' || row.status === 'failed' ? row : null;
      });
      expect(done).toMatchObject({ status: 'succeeded', attempts: 2, leaseOwner: null, leaseExpiresAt: null });
    } finally {
      await next?.close();
    }
  }, 240_000);

  it('an app stopped with SIGTERM releases the inline run it cannot finish within its drain deadline', async () => {
    const setup = new ModelRunsService(prisma, { execute: () => Promise.reject(new Error('unused')) }, { execution: 'inline', defaultSeed: 1 });
    // 1e9 simulated seconds: the event budget (1e8) ends it after a long while, never before the signal.
    await attachQueueModel(setup, 1e9, 'app-term');
    const app = launch('start.js', [], { ...childEnv(), PORT: '0', SEED_ON_START: 'false', MODEL_DRAIN_TIMEOUT_MS: '0' });
    children.push(app);
    const port = await eventually('the app listening', async () => /ready on http:\/\/[^:]+:(\d+)/.exec(app.output.join(''))?.[1]);
    void fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `mutation { runModel(input: { incident: "${QUEUE_MODEL_INCIDENT}", scenario: "as-happened", seed: 8 }) { run { id status } } }` }),
    }).catch(() => undefined);
    const running = await eventually('the app running the run', () => prisma.modelRun.findFirst({ where: { status: 'running', seed: 8 } }));
    app.kill('SIGTERM');
    await exited(app);
    expect(app.exitCode).toBe(0);
    expect(await prisma.modelRun.findUniqueOrThrow({ where: { id: running.id } })).toMatchObject({
      status: 'failed',
      errorCode: 'RUN_INTERRUPTED',
      error: 'interrupted by shutdown',
      leaseOwner: null,
    });
  }, 240_000);
});
