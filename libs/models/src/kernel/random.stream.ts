// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;

/**
 * xoshiro128** pseudo-random generator (Blackman & Vigna), seeded through splitmix32.
 *
 * Chosen because it needs only 32-bit integer arithmetic, which JavaScript does exactly
 * (Math.imul, >>>), so the same seed gives the same stream on every platform. Every
 * block of a model draws from its own stream derived from (run seed, block name): adding
 * a block or a scenario event does not shift the numbers another block sees, which keeps
 * scenario comparisons on common random numbers.
 */
export class RandomStream {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, streamName = '') {
    let s = (seed >>> 0) ^ hashString(streamName);
    const next = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    if ((this.a | this.b | this.c | this.d) === 0) this.d = 1;
  }

  /** Next unsigned 32-bit integer. */
  nextUint32(): number {
    const b = this.b;
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    this.c ^= this.a;
    this.d ^= b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  next(): number {
    const hi = this.nextUint32() >>> 5;
    const lo = this.nextUint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform double in (0, 1]: safe to take the logarithm of. */
  nextOpen(): number {
    return 1 - this.next();
  }

  exponential(mean: number): number {
    return -mean * Math.log(this.nextOpen());
  }

  /** Standard normal by Box-Muller; the second value is dropped to keep the stream stateless. */
  normal(): number {
    const u = this.nextOpen();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** FNV-1a, enough to spread block names over seeds. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
