import { runModel } from '@hindsight/models';
import { fillParameters } from './parameter.filler';
import { instantiate } from './template.builder';
import { TEMPLATES, findTemplate } from './templates';
import { REMEDY_KINDS, classifyRemedies } from './remedy';

function draft(key: string, overrides: Record<string, number> = {}) {
  const t = findTemplate(key)!;
  return { t, spec: instantiate(t, fillParameters(t, null, { overrides }), { slug: `test-${key}`, version: '1' }) };
}
const budget = { maxEvents: 50_000_000, maxWallMs: 120_000 };

describe('templates with their defaults', () => {
  it('every template documents itself, gives a reason for each default and names valid remedies', () => {
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(5);
    for (const t of TEMPLATES) {
      expect(t.docs.length).toBeGreaterThan(200);
      for (const p of t.parameters) {
        expect(p.defaultWhy.length).toBeGreaterThan(5);
        expect(p.default).toBeGreaterThanOrEqual(p.min);
        expect(p.default).toBeLessThanOrEqual(p.max);
      }
      expect(t.fixes.length).toBeGreaterThan(0);
      for (const f of t.fixes) expect(REMEDY_KINDS).toContain(f.remedy);
    }
  });

  it.each(TEMPLATES.map((t) => [t.key]))('%s: as it happened meets the failure criterion, and a fix changes the verdict', (key) => {
    const { t, spec } = draft(key);
    const asHappened = runModel({ spec, scenarioKey: 'as-happened', checks: false, budget });
    expect(asHappened.failure?.met).toBe(true);
    const outcomes = t.fixes.map((f) => runModel({ spec, scenarioKey: f.key, checks: false, budget }).verdict?.outcome);
    expect(outcomes.some((o) => o === 'PREVENTED' || o === 'DELAYED' || o === 'REDUCED')).toBe(true);
  });
});

describe('closed forms', () => {
  it("connection cap: uncapped, the connections held equal rate × hold time (Little's law)", () => {
    const { spec } = draft('connection-cap');
    const r = runModel({ spec, scenarioKey: 'as-happened' });
    const check = r.checks.find((c) => c.name === 'littles-law-demand')!;
    expect(check.pass).toBe(true);
    const v = r.parameters;
    expect(check.observed).toBeCloseTo((v.baseRate! + v.addedRate!) * (v.requestSeconds! + v.holdSeconds!), -3);
  });

  it('retry amplification: with every call failing, the backend sees (client retries + 1) × (tier retries + 1) attempts per request', () => {
    const { spec } = draft('retry-amplification');
    const r = runModel({ spec, scenarioKey: 'as-happened', parameters: { clientRetries: 2, tierRetries: 3 }, budget });
    const check = r.checks.find((c) => c.name === 'amplification-across-layers')!;
    expect(check.observed).toBeGreaterThan(12 * 0.9);
    expect(check.observed).toBeLessThan(12 * 1.1);
  });

  it('hung dependency: every worker is held slots / (rate × share) seconds after it stops answering', () => {
    const { spec } = draft('slot-exhaustion');
    const r = runModel({ spec, scenarioKey: 'as-happened', parameters: { slots: 60, requestRate: 4 } });
    const check = r.checks.find((c) => c.name === 'wedge-time')!;
    expect(check.pass).toBe(true);
    expect(check.observed).toBeGreaterThan((0.95 * 60) / 4 * 0.75);
    expect(check.observed).toBeLessThan((0.95 * 60) / 4 * 1.25);
  });

  it('capacity loss: before the loss the utilisation is load / capacity', () => {
    const { spec } = draft('capacity-loss');
    const r = runModel({ spec, scenarioKey: 'as-happened' });
    expect(r.checks.find((c) => c.name === 'utilisation-before-loss')!.pass).toBe(true);
  });

  it('feedback loop: a subcritical branching process (m = 0.5) causes 1 / (1 − m) = 2 events per starting event', () => {
    const { spec } = draft('feedback-loop', { triggerEvents: 200 });
    const r = runModel({ spec, scenarioKey: 'subcritical', checks: false, budget });
    const events = r.series.find((s) => s.key === 'loop-events')!;
    const width = r.horizon / r.time.length;
    const total = events.values.reduce<number>((s, x) => s + (x ?? 0) * width, 0);
    expect(total / 200).toBeGreaterThan(1.7);
    expect(total / 200).toBeLessThan(2.3);
  });

  it('resource exhaustion: the failure starts ((1 + spare) − 0.9 × baseShare) × capacity / growthRate after the trigger; more room delays it', () => {
    const { spec } = draft('resource-exhaustion', { capacity: 2000, baseShare: 0.5, exhaustSeconds: 1000, recoverSeconds: 3000, triggerAt: 100 });
    const r = runModel({ spec, scenarioKey: 'as-happened', budget });
    const growth = r.parameters.growthRate!;
    // Assumed so that requests start failing exhaustSeconds after the trigger.
    expect(growth).toBeCloseTo(((1 - 0.9 * 0.5) * 2000) / 1000, 6);
    const onset = r.checks.find((c) => c.name === 'time-to-exhaustion')!;
    expect(onset.pass).toBe(true);
    // The consumer's growth is 50 steps and the series are averages over output points: up to one
    // step (40 s here) and one point early.
    expect(onset.observed).toBeGreaterThan(100 + ((1 - 0.45) * 2000) / growth * 0.92);
    expect(onset.observed).toBeLessThan(100 + ((1 - 0.45) * 2000) / growth * 1.05);
    expect(runModel({ spec, scenarioKey: 'more-room', checks: false, budget }).verdict?.outcome).toBe('DELAYED');
  });

  it('resource exhaustion: an alert prevents the failure only when the response comes before the resource runs out', () => {
    // Growth (1 − 0.45) × 2000 / 1000 = 1.1 units/s. Alert at 80 %: (0.8 − 0.5) × 2000 / 1.1 ≈ 545 s
    // after the trigger; requests fail from 1,000 s.
    const quick = draft('resource-exhaustion', { capacity: 2000, baseShare: 0.5, exhaustSeconds: 1000, recoverSeconds: 3000, triggerAt: 100, respondSeconds: 200 }).spec;
    expect(runModel({ spec: quick, scenarioKey: 'alert-earlier', checks: false, budget }).verdict?.outcome).toBe('PREVENTED');
    const slow = draft('resource-exhaustion', { capacity: 2000, baseShare: 0.5, exhaustSeconds: 1000, recoverSeconds: 3000, triggerAt: 100, respondSeconds: 900 }).spec;
    expect(runModel({ spec: slow, scenarioKey: 'alert-earlier', checks: false, budget }).verdict?.outcome).toBe('REDUCED');
  });

  it('bad change: failed requests = rate × error share × rollout share × time to recover; rollback and detection reduce, they do not prevent', () => {
    const { spec } = draft('bad-change', { requestRate: 20, errorShare: 0.8, rolloutShare: 0.5, recoverSeconds: 2000 });
    const r = runModel({ spec, scenarioKey: 'as-happened', budget });
    const check = r.checks.find((c) => c.name === 'blast-radius-times-time')!;
    expect(check.pass).toBe(true);
    expect(check.observed).toBeGreaterThan(20 * 0.8 * 0.5 * 2000 * 0.95);
    expect(check.observed).toBeLessThan(20 * 0.8 * 0.5 * 2000 * 1.05);
    expect(runModel({ spec, scenarioKey: 'fast-rollback', checks: false, budget }).verdict?.outcome).toBe('REDUCED');
    expect(runModel({ spec, scenarioKey: 'alert-on-errors', checks: false, budget }).verdict?.outcome).toBe('REDUCED');
    // A canary of 5 % stays above 90 % success; noticed after 1,000 s, before the hour's bake: never goes further.
    expect(runModel({ spec, scenarioKey: 'staged-rollout', checks: false, budget }).verdict?.outcome).toBe('PREVENTED');
    // Noticed only after the bake time: the staged rollout delays the failure by the bake time.
    const late = draft('bad-change', { recoverSeconds: 20_000, bakeSeconds: 1800 }).spec;
    expect(runModel({ spec: late, scenarioKey: 'staged-rollout', checks: false, budget }).verdict?.outcome).toBe('DELAYED');
  });

  it('exposure window: harm = attempt rate × success share × window; detection and revocation shorten it (reduced), not prevent it', () => {
    const { spec } = draft('exposure-window', { attemptRate: 0.1, successShare: 0.6, windowSeconds: 7200 });
    const r = runModel({ spec, scenarioKey: 'as-happened', budget });
    const check = r.checks.find((c) => c.name === 'harm-over-window')!;
    expect(check.pass).toBe(true);
    expect(check.observed).toBeGreaterThan(0.1 * 0.6 * 7200 * 0.95);
    expect(check.observed).toBeLessThan(0.1 * 0.6 * 7200 * 1.05);
    for (const key of ['detect-earlier', 'revoke-quickly', 'harden-access', 'rate-limit']) {
      expect([key, runModel({ spec, scenarioKey: key, checks: false, budget }).verdict?.outcome]).toEqual([key, 'REDUCED']);
    }
  });
});

describe('remedy kinds of actionables', () => {
  it.each([
    ['Add an alert when the volume is 80% full', 'detect-earlier'],
    ['Add alarms for sustained high memory usage', 'detect-earlier'],
    ['#12: Page the on-call person when the queue and the database disagree', 'detect-earlier'],
    ['Delete traces older than a day with a nightly cleanup job', 'reclaim'],
    ['Give each tenant a quota on the shared volume', 'concurrency-limit'],
    ['Require two-factor authentication for every maintainer', 'harden-access'],
    ['Revoke the leaked tokens and rotate the deploy keys', 'revoke-access'],
    ['Add end-to-end tests for the upgrade path', 'pre-deploy-validation'],
    ['Make it possible to roll back a release in one step', 'rollback'],
    ['Fund the CI plan so the minutes do not run out', 'raise-cap'],
    ['配置变更应该先灰度发布到一台服务器', 'stagger-rollout'],
    ['需要在磁盘使用率超过八成时发送告警', 'detect-earlier'],
    ['管理者アカウントに二要素認証を必須にする', 'harden-access'],
  ])('"%s" is %s', (text, kind) => {
    expect(classifyRemedies(text)[0]?.kind).toBe(kind);
  });

  it('a lesson told as a story names no remedy, in any language', () => {
    // "The monitoring script kept reconnecting and sending alert messages" tells what happened.
    expect(classifyRemedies('监控脚本不断尝试重连，发送报警短信')).toEqual([]);
  });

  it('looking into something is no remedy', () => {
    expect(classifyRemedies('Investigate why the disk filled up')).toEqual([]);
    expect(classifyRemedies('Document how to reset the state')).toEqual([]);
  });
});

