import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findProjectRoot, main } from './model-cli';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await main(args), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('model CLI: ensembles, sweeps and boundaries', () => {
  const slug = 'stackegg-haproxy-session-cap-2015';

  it('--seeds runs an ensemble and prints the bands and the failure probability', async () => {
    const { code, out } = await run([slug, '--seeds', '3', '--mode', 'fluid']);
    expect(out).toContain('Ensemble of 3 runs (seeds 1–3)');
    expect(out).toMatch(/met in \d of 3 runs/);
    expect(code).toBe(0);
  });

  it('--sweep prints one line per value and --boundary words where the verdict flips', async () => {
    const sweep = await run([slug, '--sweep', 'keepAliveSeconds=5:15:3']);
    expect(sweep.code).toBe(0);
    expect(sweep.out).toContain('Sweep of keepAliveSeconds (3 values)');
    expect(sweep.out).toMatch(/\n {2}5 \| not met/);
    expect(sweep.out).toMatch(/\n {2}15 \| met from/);
    const b = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--tolerance', '1']);
    expect(b.code).toBe(0);
    expect(b.out).toMatch(/Below keepAliveSeconds = \S+ s the failure criterion \(fewer than 90 % of page connections succeed for at least 30 s\) is never met; from \S+ s on it is met/);
  });

  it('--boundary with --check bisects on whether a check passes', async () => {
    const b = await run(['slack-cache-metastability-2022', '--boundary', 'firstRelaxAdmit=0.3:1', '--check', 'relaxing-too-fast-relapses', '--tolerance', '0.1']);
    expect(b.code).toBe(0);
    expect(b.out).toContain('Boundary search on firstRelaxAdmit, seed 1, on the check "relaxing-too-fast-relapses"');
    expect(b.out).toContain('firstRelaxAdmit = 30 %: check fails');
    expect(b.out).toContain('firstRelaxAdmit = 100 %: check passes');
    expect(b.out).toMatch(/Below firstRelaxAdmit = [\d.]+ % the check "relaxing-too-fast-relapses" .* fails; from [\d.]+ % on it passes/);
    const alone = await run([slug, '--check', 'anything']);
    expect(alone.code).toBe(2);
    expect(alone.err).toContain('--check names the check a --boundary search bisects on; give --boundary too');
    const unknown = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--check', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('boundary.check: unknown check "nope"');
  });

  it('--boundary with --figure bisects on a summary figure crossing a value', async () => {
    // StackEgg's demand is its request rate × keep-alive: it passes 40,000 sessions near 11.6 s.
    const b = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--figure', 'stackegg-demand:above:40000', '--tolerance', '1']);
    expect(b.code).toBe(0);
    expect(b.out).toContain('Boundary search on keepAliveSeconds, seed 1, on the figure "stackegg-demand" above 40,000 sessions');
    expect(b.out).toContain('keepAliveSeconds = 1 s: stackegg-demand = 3,478 sessions');
    expect(b.out).toContain('keepAliveSeconds = 15 s: stackegg-demand = 51,694 sessions');
    expect(b.out).toMatch(/Below keepAliveSeconds = 11\.\d+ s the figure "stackegg-demand" \(StackEgg demand: request rate × keep-alive\) is not above 40,000 sessions; from 1[12]\.\d+ s on it is above 40,000 sessions/);
    const alone = await run([slug, '--figure', 'stackegg-demand:above:40000']);
    expect(alone.code).toBe(2);
    expect(alone.err).toContain('--figure names the figure a --boundary search bisects on; give --boundary too');
    const malformed = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--figure', 'stackegg-demand>40000']);
    expect(malformed.code).toBe(2);
    expect(malformed.err).toContain('--figure: expected figure:above:value or figure:below:value (e.g. peak-queue:above:500), got "stackegg-demand>40000"');
    const unknown = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--figure', 'nope:above:1']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('boundary.figure.name: unknown figure "nope" (known: peak-sessions, stackegg-demand, worst-page-success)');
    const huge = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--figure', 'stackegg-demand:above:1e400']);
    expect(huge.code).toBe(2);
    expect(huge.err).toContain('--figure: the value in "stackegg-demand:above:1e400" is not a finite number');
    const both = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--figure', 'stackegg-demand:above:1', '--check', 'sessions-pinned-at-cap']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('boundary.figure: search on a check or on a figure, not both');
  });

  it('refuses a repeated --figure, --check or --boundary instead of keeping the last', async () => {
    const figures = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--figure', 'stackegg-demand:above:40000', '--figure', 'peak-sessions:above:+5']);
    expect(figures.code).toBe(2);
    expect(figures.err).toContain('--figure: given twice ("stackegg-demand:above:40000", then "peak-sessions:above:+5"); a search bisects on one figure');
    const checks = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--check', 'sessions-pinned-at-cap', '--check', 'nope']);
    expect(checks.code).toBe(2);
    expect(checks.err).toContain('--check: given twice ("sessions-pinned-at-cap", then "nope"); a search bisects on one check');
    const searches = await run([slug, '--boundary', 'keepAliveSeconds=1:15', '--boundary', 'keepAliveSeconds=2:9']);
    expect(searches.code).toBe(2);
    expect(searches.err).toContain('--boundary: given twice; one search bisects one parameter');
  });

  it('sets the mode and event budget of one scenario from the command line', async () => {
    // In DES the as-happened run needs far more than 1,000 events: it stops at once.
    const des = await run([slug, '--mode', 'as-happened=des', '--budget', 'as-happened=1000']);
    expect(des.code).toBe(3);
    expect(des.err).toMatch(/more than 1000 events \(simulated time reached 0\.\d+ s of 600 s\)/);
    // A budget of another scenario reaches only that scenario's run: the as-happened checks
    // read "uncapped-demand", so it ends there (later, in fluid mode); "lower-keep-alive" is not read.
    const read = await run([slug, '--budget', 'uncapped-demand=1000']);
    expect(read.code).toBe(3);
    expect(read.err).toContain('simulated time reached 20 s of 600 s');
    const unread = await run([slug, '--budget', 'lower-keep-alive=1000']);
    expect(unread.code).toBe(0);
    const unknown = await run([slug, '--budget', 'nope=1000']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown scenario "nope"');
  });

  it('refuses an ensemble beyond the limit, with the limit', async () => {
    const { code, err } = await run([slug, '--seeds', '100000']);
    expect(code).toBe(2);
    expect(err).toContain('--seeds: expected a whole number of runs between 1 and 200 (engine limit)');
  });
});

describe('model CLI', () => {
  it('finds the project root by walking up to package.json', () => {
    expect(fs.existsSync(path.join(findProjectRoot(), 'seeds', 'models'))).toBe(true);
  });

  it('runs a seed model by slug and prints its figures and checks', async () => {
    const { code, out } = await run(['apache-outbound-calls-without-timeouts-2011']);
    expect(code).toBe(0);
    expect(out).toContain('Scenario: as-happened');
    expect(out).toMatch(/Checks \(4 of 4 pass\)/);
    expect(out).toContain('PASS wedge-time [construction]');
    // No timeout and a silent remote: the inputs alone imply the wedge, so meeting the failure is no evidence.
    expect(out).toContain('PASS as-happened-meets-failure-criterion [construction]');
    expect(out).toContain('2 of 4 reproduce a figure of the source; only those are evidence.');
    expect(out).toContain('Failure criterion: fewer than half of page requests succeed for at least 30 s');
  });

  it('applies --set and --scenario, and writes the charts with --svg', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'model-cli-')), 'charts.svg');
    const { code, out } = await run([
      'stackegg-haproxy-session-cap-2015',
      '--scenario',
      'lower-keep-alive',
      '--set',
      'keepAliveSeconds=4',
      '--svg',
      file,
      '--compare',
      'as-happened',
    ]);
    expect(code).toBe(0);
    // The fix keeps its own keep-alive and says so, instead of quietly running at 4 s.
    expect(out).toContain('Parameters changed: keepAliveSeconds=5 s');
    expect(out).toContain("Kept this scenario's own values: keepAliveSeconds=5 (asked 4)");
    expect(out).toMatch(/Worst page connection success +100 %/);
    // The as-happened run it is judged against uses 4 s too, and has no outage at 4 s.
    expect(out).toContain('Verdict: NO_FAILURE');
    const svg = fs.readFileSync(file, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Concurrent sessions');
  });

  it('runs a spec given by path', async () => {
    const file = path.join(findProjectRoot(), 'seeds', 'models', 'stackegg-haproxy-session-cap-2015.model.json');
    const { code, out } = await run([file, '--list']);
    expect(code).toBe(0);
    expect(out).toContain('keepAliveSeconds = 15 s (0..120)');
  });

  it('reports usage, parameter and lookup errors with exit status 2', async () => {
    expect((await run([])).code).toBe(2);
    const range = await run(['stackegg-haproxy-session-cap-2015', '--set', 'keepAliveSeconds=500']);
    expect(range.code).toBe(2);
    expect(range.err).toContain('parameters.keepAliveSeconds: expected a number between 0 and 120 s, got 500');
    const unknown = await run(['no-such-incident']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no model for "no-such-incident"');
    expect((await run(['stackegg-haproxy-session-cap-2015', '--set', 'x'])).code).toBe(2);
  });
});

describe('model CLI: mode and budget', () => {
  it('--budget ends a run that needs more events with exit status 3, --mode and --fluid-step pick the engine', async () => {
    const small = await run(['apache-outbound-calls-without-timeouts-2011', '--budget', '1000']);
    expect(small.code).toBe(3);
    expect(small.err).toContain('the run needed more than 1000 events');
    const fluid = await run(['stackegg-haproxy-session-cap-2015', '--mode', 'fluid', '--fluid-step', '0.2']);
    expect(fluid.out).toContain('fluid mode (step 0.2 s)');
    expect((await run(['stackegg-haproxy-session-cap-2015', '--budget', '-4'])).code).toBe(2);
    expect((await run(['stackegg-haproxy-session-cap-2015', '--fluid-step', '0'])).code).toBe(2);
  });
});
