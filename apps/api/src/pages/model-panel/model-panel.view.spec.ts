import type { ModelPanelModel, PanelRun, PanelScenario } from './model-panel.types';
import { announcement, modelPanelView } from './model-panel.view';
import { parseWhatIfForm, type WhatIfParameter } from './what-if-form.parser';

const TIME = Array.from({ length: 60 }, (_, i) => i * 10 + 5);
const PARAMETERS: WhatIfParameter[] = [
  { name: 'keepAliveSeconds', label: 'HTTP keep-alive', unit: 's', default: 15, min: 0, max: 120, description: 'HTTP keep-alive.', provenance: { kind: 'source', quote: 'tuned to 15 seconds', place: 'second factor' } },
  { name: 'sessionCap', unit: 'sessions', default: 40000, min: 1, max: 1000000, description: 'Session limit.', integer: true, provenance: { kind: 'assumption', why: 'a round number' } },
];

function run(peak: number, pass: boolean): PanelRun {
  return {
    status: 'succeeded',
    error: null,
    parameters: {},
    summary: [
      { name: 'peak-sessions', label: 'Peak concurrent sessions', value: peak, unit: 'sessions' },
      { name: 'worst-success', label: 'Worst success', value: 0.25, unit: 'ratio' },
    ],
    checks: [
      {
        name: 'pinned',
        description: 'Sessions sit at the cap.',
        scenario: 'as-happened',
        expected: { op: '>=', value: 39200, min: null, max: null, tolerance: null, absolute: false },
        expectedText: '≥ 39,200 sessions',
        observed: pass ? 40000 : 31000,
        unit: 'sessions',
        tolerance: null,
        pass,
        explanation: pass ? 'Within the expectation.' : 'The model leaves out retries.',
        kind: 'construction',
        source: null,
      },
    ],
    series: {
      time: TIME,
      series: [{ key: 'sessions', label: 'Concurrent sessions', metric: 'f.concurrency', unit: 'sessions', values: TIME.map((t) => (t < 60 ? 20000 : peak)) }],
      events: [{ key: 'peak', at: 60, kind: 'setParameter', label: 'Peak traffic' }],
      timeOrigin: null,
      horizon: 600,
    },
  };
}

function scenario(key: string, over: Partial<PanelScenario> = {}): PanelScenario {
  return { key, title: `Scenario ${key}`, description: `About ${key}.`, asHappened: false, actionable: null, run: run(30000, true), problem: null, keeps: [], ...over };
}

function model(over: Partial<ModelPanelModel> = {}): ModelPanelModel {
  return {
    slug: 'an-incident',
    title: 'A model',
    description: 'What it models.',
    mode: 'default',
    parameters: PARAMETERS,
    form: parseWhatIfForm(PARAMETERS, ['fix'], null),
    choices: [{ key: 'fix', title: 'Scenario fix' }],
    scenarios: [scenario('as-happened', { asHappened: true, run: run(40000, false) }), scenario('fix', { actionable: { key: 'lower-keep-alive', title: 'Lower the keep-alive' } })],
    probes: [{ key: 'sessions', label: 'Concurrent sessions', unit: 'sessions' }],
    horizon: 600,
    timeOrigin: null,
    busy: null,
    ...over,
  };
}

const text = (markup: string) => markup.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ');

describe('modelPanelView', () => {
  it('shows a failing check as plainly as a passing one, with expected, observed and the explanation', () => {
    const out = modelPanelView(model()).value;
    expect(out).toContain('<li class="model-check check-fail" data-check="pinned" data-scenario="as-happened" data-kind="construction">');
    expect(text(out)).toContain('✗ fails: Sessions sit at the cap.');
    expect(text(out)).toContain('Expected ≥ 39,200 sessions');
    expect(text(out)).toContain('Observed 31,000 sessions');
    expect(text(out)).toContain('The model leaves out retries.');
    expect(text(out)).toContain('✓ passes: Sessions sit at the cap.');
    expect(text(out)).toMatch(/1 of 2 checks pass; 1 fails ?\./);
  });

  it('links a fix scenario to its actionable, and says when the incident does not list it', () => {
    const out = modelPanelView(model()).value;
    expect(out).toContain('Models the fix <a href="#actionable-lower-keep-alive">Lower the keep-alive</a>.');
    const missing = modelPanelView(model({ scenarios: [scenario('as-happened', { asHappened: true }), scenario('fix', { actionable: { key: 'gone', title: null } })] })).value;
    expect(text(missing)).toContain('Models the follow-up gone , which this incident does not list');
    expect(missing).not.toContain('href="#actionable-gone"');
  });

  it('says honestly when runs are queued, running or failed, with the error', () => {
    const states = model({
      scenarios: [
        scenario('as-happened', { asHappened: true, run: { ...run(1, true), status: 'failed', error: 'event budget exceeded after 20,000,000 events', series: null, summary: null, checks: null } }),
        scenario('queued', { run: { ...run(1, true), status: 'queued', series: null, summary: null, checks: null } }),
        scenario('running', { run: { ...run(1, true), status: 'running', series: null, summary: null, checks: null } }),
        scenario('busy', { run: null, problem: 'every model worker was busy; try again in a moment' }),
      ],
    });
    const out = text(modelPanelView(states).value);
    expect(out).toContain('The run failed: event budget exceeded after 20,000,000 events');
    expect(out).toContain('Queued: waiting for a model worker.');
    expect(out).toContain('Running now.');
    expect(out).toContain('Not run: every model worker was busy; try again in a moment.');
    expect(out).toContain('No run has values to chart yet.');
  });

  it('marks a what-if as such, with what changed, a way back, and the parameters a fix keeps', () => {
    const form = parseWhatIfForm(PARAMETERS, ['fix'], { 'p.keepAliveSeconds': '30' });
    const out = modelPanelView(
      model({ mode: 'what-if', form, scenarios: [scenario('as-happened', { asHappened: true }), scenario('fix', { keeps: [{ name: 'keepAliveSeconds', value: 5, requested: 30, unit: 's' }] })] }),
    ).value;
    expect(text(out)).toContain('What-if: these runs use your values, not the incident’s: HTTP keep-alive 30 s (default 15 s).');
    expect(out).toContain('<a href="/incidents/an-incident#model">Back to the default values</a>');
    expect(text(out)).toContain('Keeps its own HTTP keep-alive = 5 s (you asked for 30 s): that is the fix, so your value was not applied here.');
    expect(out).toContain('value="30"');
    expect(announcement(model({ mode: 'what-if', form }))).toBe('Model re-run with your values: 2 runs drawn.');
  });

  it("shows each fix's verdict with its reason, the failure criterion and how many checks are evidence", () => {
    const failure = { criterion: 'page success below 90 % for 30 s', metric: 'p.successRatio', unit: 'ratio', met: true, onset: 16, duration: 300, worst: 0, magnitude: 0.9 };
    const verdict = { outcome: 'NOT_PREVENTED' as const, reason: 'Not prevented: still met from 18 s.', delay: null, run: failure, baseline: failure, baselineScenario: 'as-happened' };
    const out = modelPanelView(
      model({
        failureCriterion: 'page success below 90 % for 30 s',
        evidence: { reproduces: 3, fitted: 2, construction: 5, unlabelled: 0 },
        scenarios: [scenario('as-happened', { asHappened: true }), scenario('fix', { run: { ...run(30000, true), verdict } })],
      }),
    ).value;
    expect(out).toContain('data-verdict="NOT_PREVENTED"');
    expect(text(out)).toContain('Verdict: Not prevented Not prevented: still met from 18 s.');
    expect(text(out)).toContain('Failure criterion: page success below 90 % for 30 s. Each fix is judged by whether its run meets it, not by its own checks.');
    expect(text(out)).toContain('Evidence: 3 checks reproduce a figure of the source the model was not fitted to; the other checks are 2 fitted, 5 by construction, and do not count as evidence.');
    expect(text(out)).toContain('Kind holds by construction: arithmetic of the inputs (not evidence)');
  });

  it('says where every parameter comes from: quoted source figures apart from assumptions', () => {
    const out = modelPanelView(model()).value;
    expect(text(out)).toContain('1 value comes from the source, 0 are derived from its figures, 1 is an assumption.');
    expect(out).toContain('<tr data-parameter="keepAliveSeconds" data-provenance="source">');
    expect(text(out)).toContain('From the source tuned to 15 seconds (second factor)');
    expect(text(out)).toContain('Assumption a round number');
  });

  it('escapes everything that comes from a spec or a stored run', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const out = modelPanelView(
      model({
        title: hostile,
        description: hostile,
        scenarios: [scenario('as-happened', { asHappened: true, title: hostile, description: hostile, run: { ...run(1, true), status: 'failed', error: hostile, series: null, summary: null, checks: null } })],
        parameters: [{ ...PARAMETERS[0]!, description: hostile, unit: hostile }],
      }),
    ).value;
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
