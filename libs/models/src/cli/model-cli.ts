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

const USAGE = `Usage: model <incident-slug | path/to/spec.json> [options]

Runs an executable failure model and prints its figures and checks.

Options:
  --scenario <key>      scenario to run (default: as-happened); --list shows them
  --set <name>=<value>  override a parameter (repeatable)
  --seed <n>            random seed (default 1)
  --mode <des|fluid>    engine mode of every scenario run (default: each scenario's own)
  --fluid-step <s>      seconds per fluid step (default: the scenario's or the model's own)
  --budget <events>     event budget per scenario run (default: the scenario's or 20,000,000)
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
  compare: string[];
  svg: string | null;
  list: boolean;
  help: boolean;
}

class UsageError extends Error {}

function parseArgs(argv: string[]): CliOptions {
  const o: CliOptions = { target: null, scenario: 'as-happened', sets: {}, seed: 1, mode: undefined, fluidStep: undefined, budget: undefined, compare: [], svg: null, list: false, help: false };
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
        const m = value(i++, a);
        if (m !== 'des' && m !== 'fluid') throw new UsageError(`--mode: expected des or fluid, got "${m}"`);
        o.mode = m;
        break;
      }
      case '--fluid-step': {
        const n = Number(value(i++, a));
        if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--fluid-step: expected a positive number of seconds, got "${argv[i]}"`);
        o.fluidStep = n;
        break;
      }
      case '--budget': {
        const n = Number(value(i++, a).replace(/[_,]/g, ''));
        if (!Number.isInteger(n) || n < 1 || n > SpecLimits.maxEvents) {
          throw new UsageError(`--budget: expected a whole number of events between 1 and ${SpecLimits.maxEvents}, got "${argv[i]}"`);
        }
        o.budget = n;
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
    const spec = loadModelSpec(options.target);
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
      return e.code === 'UNKNOWN_SCENARIO' ? 2 : 3;
    }
    throw e;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
