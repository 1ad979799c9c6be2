import fs from 'node:fs';
import path from 'node:path';
import { renderRunChartsSvg } from '../chart/run-charts.renderer';
import { runModel } from '../engine/model.engine';
import { ModelError, ModelParameterError, ModelSpecError } from '../errors/model.error';
import type { ModelRunResult } from '../output/model-run.types';
import { formatDuration, formatNumber, formatQuantity } from '../output/number.format';
import type { ModelSpec } from '../spec/model-spec.types';
import { validateSpec } from '../spec/model-spec.validator';
import { SpecLimits } from '../spec/spec.limits';
import type { ModelEnsembleResult } from '../output/ensemble';
import { findBoundary, parseBoundaryFigure, runEnsemble, runSweep, type BoundaryFigure, type ModelBoundaryResult, type ModelSweepResult, type RunOne, type SweepAxis } from '../runner/model.exploration';
import { ModelRunner } from '../runner/model.runner';
import { adaptiveRunOne, MIN_PARALLEL_RUN_MS } from '../runner/run-lanes';

const USAGE = `Usage: model <incident-slug | path/to/spec.json> [options]

Runs an executable failure model and prints its figures and checks.

Options:
  --scenario <key>      scenario to run (default: as-happened); --list shows them
  --set <name>=<value>  override a parameter (repeatable)
  --seed <n>            random seed (default 1)
  --mode <des|fluid>    engine mode of every scenario run (default: each scenario's own)
  --mode <key>=<mode>   engine mode of one scenario only (repeatable), e.g. as-happened=des
  --fluid-step <s>      seconds per fluid step (default: the scenario's or the model's own)
  --budget <events>     event budget per scenario run (default: the scenario's or 20,000,000)
  --budget <key>=<n>    event budget of one scenario only (repeatable), as its own engine.maxEvents
  --seeds <n>           run a seed ensemble of n runs (seeds --seed, +1, …): bands, failure
                        probability and the ensemble checks (at most ${SpecLimits.ensembleSeeds})
  --sweep <p=a:b:n>     sweep parameter p over n values from a to b; give it twice for a grid
                        of two parameters (at most ${SpecLimits.sweepPoints} runs)
  --boundary <p=a:b>    bisection: where between a and b the failure criterion flips
  --check <name>        with --boundary: bisect on whether this check of the scenario passes
                        instead of on the failure criterion
  --figure <f:above|below:v>
                        with --boundary: bisect on the summary figure f being above (or below)
                        the value v, in the figure's unit (a ratio as a share: 0.05 for 5 %)
  --tolerance <w>       width at which --boundary stops (default (b − a) / 1000, 1 for integers)
  --workers <n>         worker threads for --seeds, --sweep and --boundary (default: the first
                        run decides; threads only for runs of ${MIN_PARALLEL_RUN_MS} ms or more with two
                        idle cores, else one run after another on this thread)
  --compare <key>       another scenario to draw beside it in the SVG (repeatable)
  --svg <file>          write the charts to an SVG file
  --list                list the model's scenarios and parameters
  --help                show this text

Exit status: 0 when every check passes, 1 when a check fails, 2 for a usage, spec or
parameter error, 3 when the run could not complete (budget exhausted).
`;

interface CliOptions {
  target: string | null;
  scenario: string;
  sets: Record<string, number>;
  seed: number;
  mode: 'des' | 'fluid' | undefined;
  fluidStep: number | undefined;
  budget: number | undefined;
  /** Per scenario: its own mode and event budget, written into its `engine` block. */
  scenarioEngine: Record<string, { mode?: 'des' | 'fluid'; maxEvents?: number }>;
  seeds: number | undefined;
  sweep: SweepAxis[];
  boundary: { parameter: string; from: number; to: number } | null;
  /** With --boundary: the check to bisect on instead of the failure criterion. */
  check: string | undefined;
  /** With --boundary: the figure crossing a value to bisect on instead of the failure criterion. */
  figure: BoundaryFigure | undefined;
  tolerance: number | undefined;
  /** Worker threads; null: the first run decides (runner/run-lanes.ts). */
  workers: number | null;
  compare: string[];
  svg: string | null;
  list: boolean;
  help: boolean;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): CliOptions {
  const o: CliOptions = { target: null, scenario: 'as-happened', sets: {}, seed: 1, mode: undefined, fluidStep: undefined, budget: undefined, scenarioEngine: {}, seeds: undefined, sweep: [], boundary: null, check: undefined, figure: undefined, tolerance: undefined, workers: null, compare: [], svg: null, list: false, help: false };
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--help':
      case '-h':
        o.help = true;
        break;
      case '--list':
        o.list = true;
        break;
      case '--scenario':
        o.scenario = value(i++, a);
        break;
      case '--seed': {
        const n = Number(value(i++, a));
        if (!Number.isInteger(n) || n < 0) throw new UsageError(`--seed: expected a whole number >= 0, got "${argv[i]}"`);
        o.seed = n;
        break;
      }
      case '--mode': {
        const v = value(i++, a);
        const eq = v.indexOf('=');
        const m = eq < 0 ? v : v.slice(eq + 1);
        if (m !== 'des' && m !== 'fluid') throw new UsageError(`--mode: expected des, fluid or <scenario>=des|fluid, got "${v}"`);
        if (eq < 0) o.mode = m;
        else (o.scenarioEngine[v.slice(0, eq)] ??= {}).mode = m;
        break;
      }
      case '--fluid-step': {
        const n = Number(value(i++, a));
        if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--fluid-step: expected a positive number of seconds, got "${argv[i]}"`);
        o.fluidStep = n;
        break;
      }
      case '--budget': {
        const v = value(i++, a);
        const eq = v.indexOf('=');
        const n = Number(v.slice(eq + 1).replace(/[_,]/g, ''));
        if (!Number.isInteger(n) || n < 1 || n > SpecLimits.maxEvents) {
          throw new UsageError(`--budget: expected a whole number of events between 1 and ${SpecLimits.maxEvents}, got "${v}"`);
        }
        if (eq < 0) o.budget = n;
        else (o.scenarioEngine[v.slice(0, eq)] ??= {}).maxEvents = n;
        break;
      }
      case '--seeds': {
        const n = Number(value(i++, a));
        if (!Number.isInteger(n) || n < 1 || n > SpecLimits.ensembleSeeds) {
          throw new UsageError(`--seeds: expected a whole number of runs between 1 and ${SpecLimits.ensembleSeeds} (engine limit), got "${argv[i]}"`);
        }
        o.seeds = n;
        break;
      }
      case '--sweep': {
        const v = value(i++, a);
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=([^:]+):([^:]+):([^:]+)$/.exec(v);
        const nums = m ? [Number(m[2]), Number(m[3]), Number(m[4])] : [];
        if (!m || !nums.every(Number.isFinite) || !Number.isInteger(nums[2])) throw new UsageError(`--sweep: expected name=from:to:count (e.g. keepAliveSeconds=1:20:8), got "${v}"`);
        if (o.sweep.length >= 2) throw new UsageError('--sweep: at most two parameters');
        o.sweep.push({ parameter: m[1]!, from: nums[0]!, to: nums[1]!, count: nums[2]! });
        break;
      }
      case '--boundary': {
        const v = value(i++, a);
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=([^:]+):([^:]+)$/.exec(v);
        if (!m || !Number.isFinite(Number(m[2])) || !Number.isFinite(Number(m[3]))) throw new UsageError(`--boundary: expected name=from:to (e.g. keepAliveSeconds=1:20), got "${v}"`);
        if (o.boundary !== null) throw new UsageError('--boundary: given twice; one search bisects one parameter');
        o.boundary = { parameter: m[1]!, from: Number(m[2]), to: Number(m[3]) };
        break;
      }
      case '--check': {
        const v = value(i++, a);
        if (o.check !== undefined) throw new UsageError(`--check: given twice ("${o.check}", then "${v}"); a search bisects on one check`);
        o.check = v;
        break;
      }
      case '--figure': {
        const v = value(i++, a);
        if (o.figure !== undefined) throw new UsageError(`--figure: given twice ("${o.figure.name}:${o.figure.op}:${o.figure.value}", then "${v}"); a search bisects on one figure`);
        const f = parseBoundaryFigure(v);
        if (f.problem === 'not finite') throw new UsageError(`--figure: the value in "${v}" is not a finite number`);
        if (f.problem) throw new UsageError(`--figure: expected figure:above:value or figure:below:value (e.g. peak-queue:above:500), got "${v}"`);
        o.figure = f.figure;
        break;
      }
      case '--tolerance': {
        const n = Number(value(i++, a));
        if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--tolerance: expected a positive width, got "${argv[i]}"`);
        o.tolerance = n;
        break;
      }
      case '--workers': {
        const n = Number(value(i++, a));
        if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--workers: expected a whole number between 1 and 64, got "${argv[i]}"`);
        o.workers = n;
        break;
      }
      case '--compare':
        o.compare.push(value(i++, a));
        break;
      case '--svg':
        o.svg = value(i++, a);
        break;
      case '--set': {
        const kv = value(i++, a);
        const eq = kv.indexOf('=');
        const n = Number(kv.slice(eq + 1));
        if (eq <= 0 || kv.slice(eq + 1).trim() === '' || !Number.isFinite(n)) throw new UsageError(`--set: expected name=number, got "${kv}"`);
        o.sets[kv.slice(0, eq)] = n;
        break;
      }
      default:
        if (a.startsWith('--')) throw new UsageError(`unknown option ${a}`);
        if (o.target !== null) throw new UsageError(`unexpected argument "${a}"`);
        o.target = a;
    }
  }
  return o;
}

/** The nearest directory above `from` holding a package.json: the project root. */
export function findProjectRoot(from: string = __dirname): string {
  let dir = path.resolve(from);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
}

/** `n` worker threads, whatever the runs' length. */
function threads(n: number): { runOne: RunOne; close(): Promise<void> } {
  const pool = new ModelRunner({ concurrency: n, maxQueue: n });
  return { runOne: (x) => pool.run(x), close: () => pool.close() };
}

/** A spec by incident slug (from seeds/models of the project) or by file path. */
export function loadModelSpec(target: string): ModelSpec {
  const looksLikePath = target.endsWith('.json') || target.includes('/') || target.includes(path.sep);
  let file: string;
  try {
    file = looksLikePath ? path.resolve(target) : path.join(findProjectRoot(), 'seeds', 'models', `${target}.model.json`);
  } catch (e) {
    throw new UsageError(`cannot look up "${target}": ${(e as Error).message}; pass a path to a spec file instead`);
  }
  if (!fs.existsSync(file)) {
    if (looksLikePath) throw new UsageError(`no such file: ${file}`);
    const dir = path.dirname(file);
    const known = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.model.json')).map((f) => f.replace('.model.json', '')) : [];
    throw new UsageError(`no model for "${target}" (known: ${known.join(', ') || 'none'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  return validateSpec(json);
}

/** The spec with per-scenario modes and budgets from the command line written into each scenario's `engine`. */
function withScenarioEngines(spec: ModelSpec, own: CliOptions['scenarioEngine']): ModelSpec {
  const keys = Object.keys(own);
  if (keys.length === 0) return spec;
  for (const key of keys) {
    if (!spec.scenarios.some((s) => s.key === key)) throw new UsageError(`--mode/--budget: unknown scenario "${key}" (known: ${spec.scenarios.map((s) => s.key).join(', ')})`);
  }
  return validateSpec({ ...spec, scenarios: spec.scenarios.map((s) => (own[s.key] ? { ...s, engine: { ...s.engine, ...own[s.key] } } : s)) });
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}


function report(result: ModelRunResult, spec: ModelSpec): string {
  const lines: string[] = [];
  lines.push(result.model.title);
  lines.push(`Scenario: ${result.scenario.key} — ${result.scenario.title}${result.scenario.actionableKey ? ` (actionable: ${result.scenario.actionableKey})` : ''}`);
  const mode = result.mode === 'fluid' ? `fluid mode (step ${result.fluidStep} s)` : 'discrete-event mode';
  lines.push(`Engine ${result.engineVersion}, ${mode}, seed ${result.seed}, ${formatNumber(result.horizon)} s simulated, ${formatNumber(result.stats.events)} events`);
  const changed = spec.parameters.filter((p) => result.parameters[p.name] !== p.default);
  if (changed.length > 0) lines.push(`Parameters changed: ${changed.map((p) => `${p.name}=${result.parameters[p.name]} ${p.unit}`).join(', ')}`);
  if (result.summary.length > 0) {
    lines.push('', 'Figures');
    const w = Math.max(...result.summary.map((f) => f.label.length));
    for (const f of result.summary) lines.push(`  ${pad(f.label, w)}  ${formatQuantity(f.value, f.unit)}`);
  }
  if (result.checks.length > 0) {
    const passed = result.checks.filter((c) => c.pass).length;
    lines.push('', `Checks (${passed} of ${result.checks.length} pass)`);
    for (const c of result.checks) {
      lines.push(`  ${c.pass ? 'PASS' : 'FAIL'} ${c.name} [${c.kind ?? 'unlabelled'}]: expected ${c.expectedText}`);
      lines.push(`       ${c.explanation}`);
    }
    const evidence = result.checks.filter((c) => c.kind === 'reproduces').length;
    lines.push(`  ${evidence} of ${result.checks.length} reproduce a figure of the source; only those are evidence.`);
  }
  if (result.conflicts.length > 0) {
    lines.push('', `Kept this scenario's own values: ${result.conflicts.map((c) => `${c.parameter}=${formatNumber(c.applied)} (asked ${formatNumber(c.requested)})`).join(', ')}`);
  }
  if (result.failure) {
    const f = result.failure;
    lines.push('', `Failure criterion: ${f.criterion}`);
    lines.push(`  ${f.met ? `met from ${formatDuration(f.onset!)} for ${formatDuration(f.duration)}, at worst ${formatQuantity(f.worst, f.unit)}` : 'not met in this run'}`);
  }
  if (result.verdict) lines.push(`Verdict: ${result.verdict.outcome}`, `  ${result.verdict.reason}`);
  const others = spec.scenarios.filter((s) => s.key !== result.scenario.key).map((s) => s.key);
  if (others.length > 0) lines.push('', `Other scenarios: ${others.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function ensembleReport(e: ModelEnsembleResult): string {
  const lines: string[] = [e.model.title];
  lines.push(`Scenario: ${e.scenario.key} — ${e.scenario.title}`);
  lines.push(`Ensemble of ${e.seeds.length} runs (seeds ${e.seeds[0]}–${e.seeds[e.seeds.length - 1]}), ${e.mode === 'fluid' ? `fluid mode (step ${e.fluidStep} s)` : 'discrete-event mode'}`);
  if (e.summary.length > 0) {
    lines.push('', 'Figures over the runs (mean; 10th, 50th, 90th percentile)');
    const w = Math.max(...e.summary.map((f) => f.label.length));
    for (const f of e.summary) lines.push(`  ${pad(f.label, w)}  ${formatQuantity(f.mean, f.unit)}; ${formatQuantity(f.p10, f.unit)}, ${formatQuantity(f.p50, f.unit)}, ${formatQuantity(f.p90, f.unit)}`);
  }
  if (e.failure) {
    lines.push('', `Failure criterion: ${e.failure.criterion}`, `  met in ${e.failure.met} of ${e.failure.runs} runs (${formatQuantity(e.failure.probability, 'ratio')})`);
  }
  if (e.verdicts) lines.push(`Verdicts: ${e.verdicts.map((v) => `${v.outcome} ${v.runs}`).join(', ')}`);
  if (e.checks.length > 0 || e.notEvaluated.length > 0) {
    lines.push('', `Ensemble checks (${e.checks.filter((c) => c.pass).length} of ${e.checks.length} pass)`);
    for (const c of e.checks) lines.push(`  ${c.pass ? 'PASS' : 'FAIL'} ${c.name} [${c.kind ?? 'unlabelled'}]: expected ${c.expectedText}`, `       ${c.explanation}`);
    for (const n of e.notEvaluated) lines.push(`  SKIP ${n.name}: ${n.reason}`);
  }
  lines.push('', e.text);
  return `${lines.join('\n')}\n`;
}

function sweepReport(s: ModelSweepResult): string {
  const lines: string[] = [s.model.title, `Scenario: ${s.scenario.key} — ${s.scenario.title}`, `Sweep of ${s.axes.map((a) => `${a.parameter} (${a.values.length} values)`).join(' × ')}, seed ${s.seed}`, ''];
  const head = [...s.axes.map((a) => `${a.parameter} (${a.unit})`), 'failure', ...s.figures.map((f) => f.label)];
  lines.push(`  ${head.join(' | ')}`);
  for (const p of s.points) {
    const cells = [
      ...s.axes.map((a) => formatNumber(p.values[a.parameter]!)),
      p.error ? `error ${p.error.code}` : p.failureMet === null ? 'n/a' : p.failureMet ? `met from ${formatDuration(p.onset ?? 0)}` : 'not met',
      ...s.figures.map((f) => formatQuantity(p.figures[f.name] ?? null, f.unit)),
    ];
    lines.push(`  ${cells.join(' | ')}`);
  }
  lines.push('', s.text);
  return `${lines.join('\n')}\n`;
}

function boundaryReport(b: ModelBoundaryResult): string {
  const lines: string[] = [b.model.title, `Scenario: ${b.scenario.key} — ${b.scenario.title}`, `Boundary search on ${b.parameter}, seed ${b.seed}`, ''];
  const check = b.target.check;
  const figure = b.target.figure;
  if (check) lines.splice(2, 1, `Boundary search on ${b.parameter}, seed ${b.seed}, on the check "${check.name}"`);
  if (figure) lines.splice(2, 1, `Boundary search on ${b.parameter}, seed ${b.seed}, on the figure "${figure.name}" ${figure.op} ${formatQuantity(figure.value, figure.unit)}`);
  for (const p of b.probes) {
    const outcome = check
      ? `check ${p.checkPassed ? 'passes' : 'fails'}`
      : figure
        ? `${figure.name} ${p.figureValue === null ? 'undefined' : `= ${formatQuantity(p.figureValue, figure.unit)}`}`
        : `failure criterion ${p.failureMet ? 'met' : 'not met'}`;
    lines.push(`  ${b.parameter} = ${formatQuantity(p.value, b.unit)}: ${outcome}`);
  }
  lines.push('', b.text);
  return `${lines.join('\n')}\n`;
}

function listing(spec: ModelSpec): string {
  const lines = [spec.title, '', 'Scenarios'];
  for (const s of spec.scenarios) lines.push(`  ${s.key}${s.actionableKey ? ` [${s.actionableKey}]` : ''} — ${s.title}`);
  lines.push('', 'Parameters');
  for (const p of spec.parameters) lines.push(`  ${p.name} = ${p.default} ${p.unit} (${p.min}..${p.max}) — ${p.description}`);
  return `${lines.join('\n')}\n`;
}

/** Command-line entry: returns the exit status instead of exiting, so it can be tested. */
export async function main(argv: string[]): Promise<number> {
  const write = (text: string): void => {
    process.stdout.write(text);
  };
  const fail = (text: string): void => {
    process.stderr.write(`${text}\n`);
  };
  let options: CliOptions;
  try {
    options = parseArgs(argv);
  } catch (e) {
    fail(`model: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help || options.target === null) {
    (options.help ? write : fail)(USAGE);
    return options.help ? 0 : 2;
  }
  try {
    const spec = withScenarioEngines(loadModelSpec(options.target), options.scenarioEngine);
    if (options.list) {
      write(listing(spec));
      return 0;
    }
    const input = {
      spec,
      scenarioKey: options.scenario,
      parameters: options.sets,
      seed: options.seed,
      mode: options.mode,
      fluidStep: options.fluidStep,
      budget: options.budget === undefined ? undefined : { maxEvents: options.budget },
    };
    const modes = [options.seeds !== undefined, options.sweep.length > 0, options.boundary !== null].filter(Boolean).length;
    if (modes > 1) throw new UsageError('--seeds, --sweep and --boundary ask different questions; give one of them');
    if (options.check !== undefined && options.boundary === null) throw new UsageError('--check names the check a --boundary search bisects on; give --boundary too');
    if (options.figure !== undefined && options.boundary === null) throw new UsageError('--figure names the figure a --boundary search bisects on; give --boundary too');
    if (modes === 1 && options.svg) throw new UsageError('--svg draws single runs; it cannot be combined with --seeds, --sweep or --boundary');
    if (modes === 1) {
      // --workers n: n worker threads; without it the first run decides (see runner/run-lanes.ts).
      const total = options.seeds ?? (options.sweep.length > 0 ? options.sweep.reduce((n, a) => n * a.count, 1) : 2);
      const runner: { runOne: RunOne; close(): Promise<void> } = options.workers === null ? adaptiveRunOne(total, 2) : threads(options.workers);
      const runOne = runner.runOne;
      const lanes = options.workers ?? 2;
      try {
        if (options.seeds !== undefined) {
          const e = await runEnsemble(input, { seeds: options.seeds, concurrency: lanes }, runOne);
          write(ensembleReport(e));
          return e.checks.every((c) => c.pass) ? 0 : 1;
        }
        if (options.sweep.length > 0) {
          write(sweepReport(await runSweep(input, { axes: options.sweep, concurrency: lanes }, runOne)));
          return 0;
        }
        write(boundaryReport(await findBoundary(input, { ...options.boundary!, tolerance: options.tolerance, check: options.check, figure: options.figure }, runOne)));
        return 0;
      } finally {
        await runner.close();
      }
    }
    const result = runModel(input);
    write(report(result, spec));
    if (options.svg) {
      const others = options.compare.map((key) => runModel({ ...input, scenarioKey: key, checks: false }));
      fs.writeFileSync(options.svg, renderRunChartsSvg(result, { compareWith: others }));
      write(`\nCharts written to ${options.svg}\n`);
    }
    return result.checks.every((c) => c.pass) ? 0 : 1;
  } catch (e) {
    if (e instanceof UsageError) {
      fail(`model: ${e.message}`);
      return 2;
    }
    if (e instanceof ModelSpecError) {
      fail(`model: invalid spec\n${e.issues.map((i) => `  ${i.path}: ${i.reason}`).join('\n')}`);
      return 2;
    }
    if (e instanceof ModelParameterError) {
      fail(`model: ${e.message}`);
      return 2;
    }
    if (e instanceof ModelError) {
      fail(`model: ${e.message}`);
      return e.code === 'UNKNOWN_SCENARIO' || e.code === 'INVALID_SPEC' ? 2 : 3;
    }
    throw e;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
