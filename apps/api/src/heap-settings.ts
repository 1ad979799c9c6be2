import v8 from 'node:v8';

/**
 * V8 settings for the server process, applied before anything else is loaded (main.ts imports
 * this first), so every way of starting it (`npm start`, `npm run start:prod`, the image) runs
 * with the same heap.
 *
 * Allocation-site pretenuring is off. V8 puts objects straight into the old generation when
 * their allocation site's objects mostly survived a young collection. A server answering one
 * request after another defeats that heuristic: an object that is part of the request in flight
 * when a scavenge runs survives it, its site gets pretenured, and from then on every request's
 * objects from that site start old and keep the young objects they point to alive through every
 * scavenge until the next full collection. Measured on the detail and the list at one
 * connection (docs/benchmarks.md, "Pretenuring off in the server process"): each scavenge
 * promoted about 2.4 times less, paused about a fifth less, and the p50, p95, p99 and CPU per
 * request all went down. The model engine's runs were measured with it too, and did not change
 * beyond the noise.
 */
v8.setFlagsFromString('--no-allocation-site-pretenuring');
