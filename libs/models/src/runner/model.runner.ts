import path from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { RunModelInput } from '../engine/model.engine';
import { fromModelErrorData, ModelErrorCode, ModelRunError } from '../errors/model.error';
import { DEFAULT_RUN_BUDGET } from '../kernel/simulation.kernel';
import type { ModelRunResult } from '../output/model-run.types';
import type { WorkerReply, WorkerRequest } from './model.worker';

export interface ModelRunnerOptions {
  /** Runs executing at once, one per worker thread. Default 2. */
  concurrency?: number;
  /** Runs allowed to wait for a free worker; one more is refused at once with QUEUE_FULL. Default 16. */
  maxQueue?: number;
  /**
   * Wall-clock limit of one run enforced from outside by terminating its worker, for runs
   * that stop answering. Default: the run's own wall budget plus one second.
   */
  wallTimeMs?: number;
  /** Time a fresh worker may take to load the engine before the run counts as failed. Default 30 s. */
  startupTimeoutMs?: number;
  /**
   * Heap and stack limits of each worker thread. A run that reaches them fails alone with
   * MODEL_RUN_OUT_OF_MEMORY and its worker is replaced; the calling process keeps its memory.
   * Default: 512 MB of old generation.
   */
  resourceLimits?: ResourceLimits;
  /**
   * Largest result accepted, in bytes of its JSON (serialised in the worker). A larger one fails
   * with MODEL_RESULT_TOO_LARGE. Default 16 MiB.
   */
  maxResultBytes?: number;
}

export const DEFAULT_WORKER_RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 512 };
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

interface Job {
  id: number;
  input: RunModelInput;
  resolve: (json: string) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/*
 * The worker thread loads the engine itself. Compiled (dist/, CommonJS) the entry is the
 * .js next to this file. Under a TypeScript-transforming test runner the entry is the .ts
 * source, which a worker thread cannot load without help: the bootstrap then registers a
 * require hook that transpiles .ts files with @swc/core (a development dependency).
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const entry = workerData.entry;
if (entry.endsWith('.ts') && !require.extensions['.ts']) {
  const fs = require('node:fs');
  const { createRequire } = require('node:module');
  const { transformSync } = createRequire(entry)('@swc/core');
  require.extensions['.ts'] = function (module, filename) {
    const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
      filename,
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
      module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
}
require(entry);
`;

function workerEntry(): string {
  return path.join(__dirname, `model.worker${path.extname(__filename) || '.js'}`);
}

/**
 * Runs models off the calling thread in worker threads: at most `concurrency` at once and
 * at most `maxQueue` waiting; beyond that `run` rejects at once (QUEUE_FULL) instead of
 * letting waits grow. Each run is bounded by the engine's event and wall budgets, and from
 * outside by terminating a worker that overruns its wall time.
 */
export class ModelRunner {
  private readonly concurrency: number;
  private readonly maxQueue: number;
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ModelRunnerOptions = {}) {
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
    this.maxQueue = Math.max(0, Math.floor(options.maxQueue ?? 16));
  }

  /** Runs executing now. */
  get active(): number {
    return this.slots.filter((s) => s.job !== null).length;
  }

  /** Runs waiting for a worker. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `run` would accept now (free workers plus free places in the wait queue). */
  get room(): number {
    return this.closed ? 0 : Math.max(0, this.concurrency + this.maxQueue - this.active - this.waiting.length);
  }

  async run(input: RunModelInput): Promise<ModelRunResult> {
    return JSON.parse(await this.runJson(input)) as ModelRunResult;
  }

  /**
   * The result as the worker serialised it (JSON of a `ModelRunResult`), for callers that store
   * it without reading it: the calling thread neither copies nor re-serialises an object graph.
   */
  runJson(input: RunModelInput): Promise<string> {
    if (this.closed) {
      return Promise.reject(new ModelRunError(ModelErrorCode.RunnerClosed, 'the model runner has been closed'));
    }
    const busy = this.active;
    if (busy >= this.concurrency && this.waiting.length >= this.maxQueue) {
      return Promise.reject(
        new ModelRunError(ModelErrorCode.QueueFull, `${busy} runs in progress and ${this.waiting.length} waiting; try again later`, {
          active: busy,
          queued: this.waiting.length,
        }),
      );
    }
    return new Promise<string>((resolve, reject) => {
      this.waiting.push({ id: this.nextId++, input, resolve, reject });
      this.dispatch();
    });
  }

  /** Rejects waiting runs, stops the workers (runs in progress fail with RUNNER_CLOSED). */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new ModelRunError(ModelErrorCode.RunnerClosed, 'the model runner has been closed'));
    const slots = this.slots.splice(0);
    await Promise.all(
      slots.map(async (slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        const job = slot.job;
        slot.job = null;
        await slot.worker.terminate();
        job?.reject(new ModelRunError(ModelErrorCode.RunnerClosed, 'the model runner was closed during the run'));
      }),
    );
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot) {
        if (this.slots.length >= this.concurrency) return;
        slot = this.spawn();
      }
      const job = this.waiting.shift() as Job;
      slot.job = job;
      slot.worker.ref();
      // A fresh worker first loads the engine; the run's own clock starts when it says so.
      this.arm(slot, this.options.startupTimeoutMs ?? 30_000, 'the worker did not start the run in time');
      slot.worker.postMessage({ id: job.id, input: job.input, maxResultBytes: this.options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES } satisfies WorkerRequest);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { entry: workerEntry() },
      resourceLimits: this.options.resourceLimits ?? DEFAULT_WORKER_RESOURCE_LIMITS,
    });
    const slot: Slot = { worker, job: null, timer: null };
    worker.on('message', (msg: WorkerReply) => this.onMessage(slot, msg));
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') this.onOutOfMemory(slot);
      else this.onLost(slot, error.message);
    });
    worker.on('exit', (code) => this.onLost(slot, `the worker exited with code ${code}`));
    this.slots.push(slot);
    return slot;
  }

  private arm(slot: Slot, ms: number, reason: string): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => this.onWallTime(slot, ms, reason), ms);
  }

  private wallLimit(job: Job): number {
    if (this.options.wallTimeMs !== undefined) return this.options.wallTimeMs;
    return (job.input.budget?.maxWallMs ?? DEFAULT_RUN_BUDGET.maxWallMs) + 1000;
  }

  private onMessage(slot: Slot, msg: WorkerReply): void {
    const job = slot.job;
    if (!job || msg.id !== job.id) return;
    if (msg.kind === 'started') {
      this.arm(slot, this.wallLimit(job), 'the run overran its wall-time limit');
      return;
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    slot.worker.unref();
    if (msg.kind === 'done') job.resolve(msg.json);
    else job.reject(fromModelErrorData(msg.error));
    this.dispatch();
  }

  /** Enforcement from outside: the worker is terminated and replaced on demand. */
  private onWallTime(slot: Slot, ms: number, reason: string): void {
    const job = slot.job;
    this.remove(slot);
    void slot.worker.terminate();
    job?.reject(new ModelRunError(ModelErrorCode.WallTimeExceeded, `${reason} (${ms} ms); the worker was stopped`, { maxWallMs: ms }));
    this.dispatch();
  }

  private onOutOfMemory(slot: Slot): void {
    if (!this.slots.includes(slot)) return;
    const job = slot.job;
    this.remove(slot);
    const limits = this.options.resourceLimits ?? DEFAULT_WORKER_RESOURCE_LIMITS;
    job?.reject(
      new ModelRunError(ModelErrorCode.OutOfMemory, `the run needed more memory than its worker may use (${limits.maxOldGenerationSizeMb ?? 'default'} MB of heap); the worker was stopped`, {
        maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb ?? 0,
      }),
    );
    this.dispatch();
  }

  private onLost(slot: Slot, reason: string): void {
    if (!this.slots.includes(slot)) return;
    const job = slot.job;
    this.remove(slot);
    job?.reject(new ModelRunError(ModelErrorCode.WorkerFailed, `the model worker failed: ${reason}`));
    this.dispatch();
  }

  private remove(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }
}
