import type { Instance } from './gate';
import type { Station } from './station';
import { Root, Visit } from './visit';

describe('Visit.reuse', () => {
  it('leaves every field of a used visit as a new visit of the same station starts with', () => {
    const station = {} as Station;
    const first = {} as Instance;
    const second = {} as Instance;
    const root = new Root(0, 0, 0);
    const fresh = new Visit(1, station, second, null, root, 3, 7);
    const used = new Visit(1, station, first, null, root, 2, 5);
    // Every field a run can change gets some other value (a field added later is covered too).
    const fixed = new Set(['station', 'parent', 'root', 'client']);
    const fields = used as unknown as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (fixed.has(key)) continue;
      fields[key] = typeof fields[key] === 'boolean' ? !fields[key] : key === 'inst' ? first : 42;
    }
    used.reuse(second, 3, 7);
    expect({ ...used }).toEqual({ ...fresh });
    expect(used.inst).toBe(second);
  });
});
