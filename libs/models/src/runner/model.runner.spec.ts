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
    await expect(runner.run({ spec: quick() })).rejects.toMatchObject({ code: ModelErrorCode.QueueFull });
    const results = await Promise.all(runs);
    expect(results).toHaveLength(3);
    expect(runner.active).toBe(0);
    expect(runner.queued).toBe(0);
  });

  it('terminates a run that overruns its wall time from outside, and keeps serving', async () => {
    runner = new ModelRunner({ concurrency: 1, wallTimeMs: 150 });
    // The engine's own budget would allow a minute: only the runner can stop it in time.
    const error = await runner.run({ spec: mmcSpec(0.9, 1, 1, 1e12), budget: { maxWallMs: 60_000, maxEvents: Number.MAX_SAFE_INTEGER } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRunError);
    expect((error as ModelRunError).code).toBe(ModelErrorCode.WallTimeExceeded);
    await expect(runner.run({ spec: quick() })).resolves.toMatchObject({ scenario: { key: 'as-happened' } });
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
