'use strict';
// The practical ceiling for an M/M/1 event loop in JavaScript: a hand-written binary heap
// over typed arrays, inline xoshiro128** draws, no dispatch layer. Same model and random
// generator as the kernel benchmark, so the difference is the kernel's own overhead.

function makeRandom(seed) {
  let s = seed >>> 0;
  const next32 = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = next32();
  let b = next32();
  let c = next32();
  let d = next32();
  const u32 = () => {
    const r = Math.imul(((Math.imul(b, 5) << 7) | (Math.imul(b, 5) >>> 25)), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = (d << 11) | (d >>> 21);
    return r;
  };
  return {
    exponential(mean) {
      const u = ((u32() >>> 5) * 67108864 + (u32() >>> 6)) / 9007199254740992;
      return -mean * Math.log(1 - u);
    },
  };
}

/** Runs until `customers` have arrived; returns events processed and the mean wait. */
function runBaseline(customers, seed = 1) {
  const rng = makeRandom(seed);
  let cap = 1024;
  let times = new Float64Array(cap);
  let seqs = new Float64Array(cap);
  let kinds = new Uint8Array(cap);
  let n = 0;
  let seq = 0;
  const push = (t, k) => {
    if (n === cap) {
      cap *= 2;
      const t2 = new Float64Array(cap);
      t2.set(times);
      times = t2;
      const s2 = new Float64Array(cap);
      s2.set(seqs);
      seqs = s2;
      const k2 = new Uint8Array(cap);
      k2.set(kinds);
      kinds = k2;
    }
    const q = seq++;
    let i = n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p] < t || (times[p] === t && seqs[p] < q)) break;
      times[i] = times[p];
      seqs[i] = seqs[p];
      kinds[i] = kinds[p];
      i = p;
    }
    times[i] = t;
    seqs[i] = q;
    kinds[i] = k;
  };
  let now = 0;
  let queue = 0;
  let busy = false;
  let arrived = 0;
  let events = 0;
  const ARRIVAL = 0;
  const DEPARTURE = 1;
  push(rng.exponential(1 / 0.9), ARRIVAL);
  while (n > 0) {
    now = times[0];
    const kind = kinds[0];
    const last = --n;
    if (last > 0) {
      const t = times[last];
      const s = seqs[last];
      const k = kinds[last];
      let i = 0;
      const half = last >> 1;
      while (i < half) {
        let c = 2 * i + 1;
        if (c + 1 < last && (times[c + 1] < times[c] || (times[c + 1] === times[c] && seqs[c + 1] < seqs[c]))) c++;
        if (t < times[c] || (t === times[c] && s < seqs[c])) break;
        times[i] = times[c];
        seqs[i] = seqs[c];
        kinds[i] = kinds[c];
        i = c;
      }
      times[i] = t;
      seqs[i] = s;
      kinds[i] = k;
    }
    events++;
    if (kind === ARRIVAL) {
      arrived++;
      if (arrived < customers) push(now + rng.exponential(1 / 0.9), ARRIVAL);
      if (busy) queue++;
      else {
        busy = true;
        push(now + rng.exponential(1), DEPARTURE);
      }
    } else if (queue > 0) {
      queue--;
      push(now + rng.exponential(1), DEPARTURE);
    } else {
      busy = false;
    }
  }
  return { events, simulatedSeconds: now };
}

module.exports = { runBaseline };
