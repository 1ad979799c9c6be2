'use strict';
// The bare kernel's M/M/1 loop: the same queue as bench/mm1-spec.js, written straight against
// the simulation kernel with no engine around it. The model benches time it beside the engine.
require('../scripts/register-ts');
const { SimulationKernel } = require('../libs/models/src/kernel/simulation.kernel.ts');
const { RandomStream } = require('../libs/models/src/kernel/random.stream.ts');

function kernelMM1(customers, seed) {
  const k = new SimulationKernel(1024);
  const rng = new RandomStream(seed, 'bench');
  let queue = 0;
  let busy = false;
  let arrived = 0;
  let last = 0;
  const ARRIVAL = 0;
  const DEPARTURE = 1;
  k.schedule(rng.exponential(1 / 0.9), ARRIVAL, null);
  k.run(
    1e15,
    (kind) => {
      last = k.now;
      if (kind === ARRIVAL) {
        arrived++;
        if (arrived < customers) k.schedule(k.now + rng.exponential(1 / 0.9), ARRIVAL, null);
        if (busy) queue++;
        else {
          busy = true;
          k.schedule(k.now + rng.exponential(1), DEPARTURE, null);
        }
      } else if (queue > 0) {
        queue--;
        k.schedule(k.now + rng.exponential(1), DEPARTURE, null);
      } else {
        busy = false;
      }
    },
    { maxEvents: 10 * customers, maxWallMs: 120_000 },
  );
  return { events: k.processed, simulatedSeconds: last };
}

module.exports = { kernelMM1 };
