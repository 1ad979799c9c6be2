import { RandomStream } from './random.stream';
import { EventQueue } from './event.queue';

describe('EventQueue', () => {
  it('pops events in time order, whatever order they were pushed in', () => {
    const q = new EventQueue(4);
    const rng = new RandomStream(42, 'heap');
    const times: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const t = Math.floor(rng.next() * 1000) / 10;
      times.push(t);
      q.push(t, i, null);
    }
    const popped: number[] = [];
    while (q.pop()) popped.push(q.poppedTime);
    expect(popped).toEqual([...times].sort((a, b) => a - b));
  });

  it('breaks ties by scheduling order, so equal-time events fire deterministically', () => {
    const q = new EventQueue(2);
    const order = [7, 3, 9, 1, 5, 0, 8];
    for (const k of order) q.push(10, k, `e${k}`);
    q.push(5, 99, 'early');
    const kinds: number[] = [];
    while (q.pop()) kinds.push(q.poppedKind);
    expect(kinds).toEqual([99, ...order]);
  });

  it('interleaves pushes and pops correctly and grows past its initial capacity', () => {
    const q = new EventQueue(16);
    let now = 0;
    const rng = new RandomStream(7, 'interleave');
    let last = -Infinity;
    let count = 0;
    for (let i = 0; i < 200; i++) q.push(now + rng.exponential(1), 0, null);
    while (q.pop()) {
      expect(q.poppedTime).toBeGreaterThanOrEqual(last);
      last = q.poppedTime;
      now = q.poppedTime;
      if (++count < 20000) q.push(now + rng.exponential(1), 0, null);
    }
    expect(count).toBe(20199);
    expect(q.size).toBe(0);
  });
});
