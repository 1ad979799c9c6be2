import { runModel } from '@hindsight/models';
import { fillParameters } from './parameter.filler';
import { instantiate } from './template.builder';
import { TEMPLATES, findTemplate } from './templates';
import { REMEDY_KINDS } from './remedy';

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
});
