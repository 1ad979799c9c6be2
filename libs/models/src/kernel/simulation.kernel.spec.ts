import { ModelErrorCode, ModelRunError } from '../errors/model.error';
import { SimulationKernel } from './simulation.kernel';

describe('SimulationKernel', () => {
  it('advances simulated time only through events, never backwards', () => {
    const k = new SimulationKernel();
    const seen: number[] = [];
    k.schedule(5, 0, null);
    k.schedule(1, 1, null);
    k.run(10, (kind) => {
      seen.push(k.now);
      if (kind === 1) k.schedule(0.5, 0, null); // in the past: clamped to now
    });
    expect(seen).toEqual([1, 1, 5]);
    expect(k.now).toBe(10);
    expect(k.processed).toBe(3);
  });

  it('leaves events after the horizon in the queue', () => {
    const k = new SimulationKernel();
    k.schedule(3, 0, null);
    k.schedule(30, 0, null);
    let fired = 0;
    k.run(10, () => fired++);
    expect(fired).toBe(1);
    expect(k.queue.size).toBe(1);
  });

  it('ends a run that needs more events than its budget with EVENT_BUDGET_EXCEEDED', () => {
    const k = new SimulationKernel();
    k.schedule(0, 0, null);
    const forever = () => k.schedule(k.now + 1, 0, null);
    expect(() => k.run(1e9, forever, { maxEvents: 1000, maxWallMs: 60_000 })).toThrow(
      expect.objectContaining({ code: ModelErrorCode.EventBudgetExceeded }),
    );
    expect(k.processed).toBe(1001);
  });

  it('ends a run that exceeds its wall-time budget with WALL_TIME_EXCEEDED', () => {
    const k = new SimulationKernel();
    k.schedule(0, 0, null);
    const forever = () => k.schedule(k.now + 1e-6, 0, null);
    let error: unknown;
    try {
      k.run(Infinity, forever, { maxEvents: Number.MAX_SAFE_INTEGER, maxWallMs: 5 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelRunError);
    expect((error as ModelRunError).code).toBe(ModelErrorCode.WallTimeExceeded);
  });
});
