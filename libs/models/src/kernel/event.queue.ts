/**
 * Binary min-heap of simulation events keyed by (time, sequence number).
 *
 * Times, sequence numbers and kinds live in typed arrays and targets in a plain array,
 * all kept in parallel, so a push or a pop allocates nothing. The sequence number is the
 * order of scheduling: two events at the same time fire in the order they were
 * scheduled, which keeps runs reproducible whatever the heap's internal layout.
 */
export class EventQueue {
  private times: Float64Array;
  private seqs: Float64Array;
  private kinds: Int32Array;
  private targets: unknown[];
  private count = 0;
  private nextSeq = 0;

  /** Filled by {@link pop}; read them right after the call. */
  poppedTime = 0;
  poppedKind = 0;
  poppedTarget: unknown = null;

  constructor(initialCapacity = 1024) {
    const capacity = Math.max(16, initialCapacity | 0);
    this.times = new Float64Array(capacity);
    this.seqs = new Float64Array(capacity);
    this.kinds = new Int32Array(capacity);
    this.targets = new Array<unknown>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Number of events ever scheduled; also the next tie-break value. */
  get scheduled(): number {
    return this.nextSeq;
  }

  push(time: number, kind: number, target: unknown): void {
    if (this.count === this.times.length) this.grow();
    const seq = this.nextSeq++;
    const times = this.times;
    const seqs = this.seqs;
    const kinds = this.kinds;
    const targets = this.targets;
    let i = this.count++;
    // Sift the hole up instead of swapping: one write per level.
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p];
      if (pt < time || (pt === time && seqs[p] < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[p];
      kinds[i] = kinds[p];
      targets[i] = targets[p];
      i = p;
    }
    times[i] = time;
    seqs[i] = seq;
    kinds[i] = kind;
    targets[i] = target;
  }

  /** Removes the earliest event into poppedTime/poppedKind/poppedTarget; false when empty. */
  pop(): boolean {
    return this.popUntil(Number.POSITIVE_INFINITY);
  }

  /** Like pop, but only if the earliest event is due at or before `until`. */
  popUntil(until: number): boolean {
    const n = this.count;
    if (n === 0 || this.times[0] > until) return false;
    const times = this.times;
    const seqs = this.seqs;
    const kinds = this.kinds;
    const targets = this.targets;
    this.poppedTime = times[0];
    this.poppedKind = kinds[0];
    this.poppedTarget = targets[0];
    const last = n - 1;
    this.count = last;
    if (last > 0) {
      const t = times[last];
      const s = seqs[last];
      const k = kinds[last];
      const g = targets[last];
      let i = 0;
      const half = last >> 1;
      while (i < half) {
        let c = 2 * i + 1;
        const r = c + 1;
        if (r < last && (times[r] < times[c] || (times[r] === times[c] && seqs[r] < seqs[c]))) c = r;
        const ct = times[c];
        if (t < ct || (t === ct && s < seqs[c])) break;
        times[i] = ct;
        seqs[i] = seqs[c];
        kinds[i] = kinds[c];
        targets[i] = targets[c];
        i = c;
      }
      times[i] = t;
      seqs[i] = s;
      kinds[i] = k;
      targets[i] = g;
    }
    targets[last] = undefined;
    return true;
  }

  /** Time of the earliest event, or +Infinity when empty. */
  peekTime(): number {
    return this.count === 0 ? Number.POSITIVE_INFINITY : this.times[0];
  }

  clear(): void {
    this.targets.fill(undefined, 0, this.count);
    this.count = 0;
  }

  private grow(): void {
    const capacity = this.times.length * 2;
    const times = new Float64Array(capacity);
    times.set(this.times);
    const seqs = new Float64Array(capacity);
    seqs.set(this.seqs);
    const kinds = new Int32Array(capacity);
    kinds.set(this.kinds);
    this.times = times;
    this.seqs = seqs;
    this.kinds = kinds;
    this.targets.length = capacity;
  }
}
