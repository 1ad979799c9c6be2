import v8 from 'node:v8';

/**
 * V8 settings for the server process, applied as main.ts starts (it imports this right after the
 * path aliases, before the app's modules), so every way of starting it (`npm start`, `npm run
 * start:prod`, the image) runs with the same heap. The CLI and the worker are not affected.
 *
 * Allocation-site pretenuring is off. V8 puts objects straight into the old generation when
 * their allocation site's objects mostly survived a young collection, and it made that decision
 * for sites of per-request objects. With it, each scavenge promoted about 1.15 MB, growing with
 * the number of requests since the previous one, as if finished requests stayed reachable until
 * the next full collection (which objects carried them was not traced). Without it, a scavenge
 * promoted about 0.48 MB, and the detail's and the list's latencies and CPU per request at one
 * connection went down (docs/benchmarks.md, "Fewer objects kept and made per read"). The model
 * engine's runs were timed with it too, and did not change beyond the noise.
 */
v8.setFlagsFromString('--no-allocation-site-pretenuring');
