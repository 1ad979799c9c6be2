import { ModelErrorCode, ModelRunError, ModelSpecError } from '../errors/model.error';
import { runModel } from '../engine/model.engine';
import { mmcSpec, specWith } from '../testing/spec.fixtures';
import { ModelRunner } from './model.runner';

// A run long enough to still be going while the test looks at the runner (~1 s of work).
const slow = () => mmcSpec(0.9, 1, 1, 2_000_000);
const quick = () => mmcSpec(0.8, 1, 2, 2000);

describe('ModelRunner (worker threads)', () => {
  let runner: ModelRunner | null = null;
  afterEach(async () => {
    await runner?.close();
    runner = null;
  });

  it('returns the same result as an in-process run, loaded from the TypeScript sources', async () => {
    runner = new ModelRunner({ concurrency: 1 });
    const input = { spec: quick(), seed: 4 };
    const result = await runner.run(input);
    expect(JSON.stringify(result)).toBe(JSON.stringify(runModel(input)));
  });

  it('runs at most `concurrency` at once, queues the rest, and refuses beyond the queue at once', async () => {
    runner = new ModelRunner({ concurrency: 2, maxQueue: 1 });
    const budget = { maxWallMs: 60_000 };
    const runs = [runner.run({ spec: slow(), budget }), runner.run({ spec: slow(), budget }), runner.run({ spec: quick() })];
    expect(runner.active).toBe(2);
    expect(runner.queued).toBe(1);
    expect(runner.room).toBe(0);
    await expect(runner.run({ spec: quick() })).rejects.toMatchObject({ code: ModelErrorCode.QueueFull });
    const results = await Promise.all(runs);
    expect(results).toHaveLength(3);
    expect(runner.active).toBe(0);
    expect(runner.queued).toBe(0);
  });

  it('terminates a run that overruns its wall time from outside, and keeps serving', async () => {
    runner = new ModelRunner({ concurrency: 1, wallTimeMs: 1_000 });
    // Load the engine first: the limit counts from the worker's "started", never its start-up.
    await runner.run({ spec: quick() });
    // 1e12 simulated seconds with no event budget cannot finish in any machine's lifetime, and the
    // engine's own budget would allow a minute: only the runner can stop it at its limit.
    const error = await runner.run({ spec: mmcSpec(0.9, 1, 1, 1e12), budget: { maxWallMs: 60_000, maxEvents: Number.MAX_SAFE_INTEGER } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRunError);
    expect((error as ModelRunError).code).toBe(ModelErrorCode.WallTimeExceeded);
    await expect(runner.run({ spec: quick() })).resolves.toMatchObject({ scenario: { key: 'as-happened' } });
  });

  it('fails a run that exhausts its worker heap alone, replaces the worker, and keeps serving', async () => {
    runner = new ModelRunner({ concurrency: 2, resourceLimits: { maxOldGenerationSizeMb: 48 } });
    // Arrivals at 100/s into one server of rate 1 with an unbounded queue: waiting visits pile up
    // until the heap is gone, long before the (unlimited) budgets stop the run.
    const flood = specWith({
      horizon: 1e9,
      stations: [{ key: 'server', slots: 1, service: { dist: 'exponential', mean: 1 } }],
      sources: [{ key: 'arrivals', kind: 'open', target: 'server', rate: 100 }],
    });
    const [error, neighbour] = await Promise.all([
      runner.run({ spec: flood, budget: { maxWallMs: 600_000, maxEvents: Number.MAX_SAFE_INTEGER } }).catch((e: unknown) => e),
      runner.run({ spec: quick(), seed: 2 }),
    ]);
    expect(error).toBeInstanceOf(ModelRunError);
    expect((error as ModelRunError).code).toBe(ModelErrorCode.OutOfMemory);
    expect((error as ModelRunError).message).toMatch(/48 MB/);
    expect(neighbour.scenario.key).toBe('as-happened');
    await expect(runner.run({ spec: quick() })).resolves.toMatchObject({ scenario: { key: 'as-happened' } });
  });

  it('refuses a result larger than its cap with the size and the limit', async () => {
    runner = new ModelRunner({ concurrency: 1, maxResultBytes: 1_000 });
    const error = await runner.run({ spec: quick() }).catch((e: unknown) => e);
    expect((error as ModelRunError).code).toBe(ModelErrorCode.ResultTooLarge);
    expect((error as ModelRunError).message).toMatch(/more than the limit of 1000/);
    await runner.close();
    runner = new ModelRunner({ concurrency: 1 });
    const json = await runner.runJson({ spec: quick(), seed: 4 });
    expect(json).toBe(JSON.stringify(runModel({ spec: quick(), seed: 4 })));
  });

  it('passes typed errors back from the worker', async () => {
    runner = new ModelRunner({ concurrency: 1 });
    const bad = specWith({ stations: [{ key: 'a', slots: -3 }], sources: [{ key: 's', kind: 'open', target: 'a', rate: 1 }] });
    const error = await runner.run({ spec: bad }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelSpecError);
    expect((error as ModelSpecError).path).toBe('stations[0].slots');
    const budget = await runner.run({ spec: slow(), budget: { maxEvents: 1000 } }).catch((e: unknown) => e);
    expect((budget as ModelRunError).code).toBe(ModelErrorCode.EventBudgetExceeded);
  });

  it('refuses work after close', async () => {
    const r = new ModelRunner();
    await r.close();
    await expect(r.run({ spec: quick() })).rejects.toMatchObject({ code: ModelErrorCode.RunnerClosed });
  });
});
