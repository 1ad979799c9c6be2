import type { ControllerEventSpec } from '../spec/model-spec.types';
import { EV_CONTROL } from './runtime.constants';
import { compileValue, type ParameterStore } from './value.compiler';
import type { CacheRt } from './cache';
import type { FlowSimulation } from './flow.runtime';
import type { Source } from './source';
import type { Station } from './station';

/** The scenario controller: the timeline of triggers and interventions. */
// Local bindings for globals read in hot loops: test runners that evaluate modules in a vm
// context make every global lookup an order of magnitude slower than a local one.
const Math = globalThis.Math;

export interface FiredEvent {
  key: string;
  at: number;
  kind: string;
  label: string;
}

export class ControlStep {
  constructor(
    readonly key: string,
    readonly apply: () => void,
  ) {}
}

/**
 * The scenario controller: turns the timeline of a scenario (config changes, load spikes,
 * capacity loss, blackholes, cache flushes, throttles, process stops) into control steps.
 */
export class ScenarioController {
  constructor(
    private readonly sim: FlowSimulation,
    private readonly store: ParameterStore,
  ) {}

  private at(time: number, key: string, apply: () => void): void {
    this.sim.kernel.schedule(time, EV_CONTROL, new ControlStep(key, apply));
  }

  /** Schedules a value change, spread over `ramp` seconds in up to 20 equal steps. */
  private ramped(e: ControllerEventSpec, start: number, rampSec: number, read: () => number, target: number, write: (v: number) => void): void {
    if (!(rampSec > 0)) {
      this.at(start, e.key, () => write(target));
      return;
    }
    const steps = 20;
    let from = 0;
    this.at(start, e.key, () => {
      from = read();
    });
    for (let k = 1; k <= steps; k++) {
      this.at(start + (rampSec * k) / steps, e.key, () => write(from + ((target - from) * k) / steps));
    }
  }

  schedule(e: ControllerEventSpec): void {
    const store = this.store;
    const start = compileValue(e.at, 0, store)();
    this.at(start, e.key, () => this.sim.fired.push({ key: e.key, at: start, kind: e.kind, label: e.label }));
    const ramp = 'ramp' in e && e.ramp !== undefined ? compileValue(e.ramp, 0, store)() : 0;
    switch (e.kind) {
      case 'setParameter': {
        const value = compileValue(e.value, 0, store)();
        this.ramped(e, start, ramp, () => store.get(e.parameter), value, (v) => {
          store.set(e.parameter, v);
          this.sim.refresh();
        });
        break;
      }
      case 'scaleSource': {
        const src = this.sim.sourceByKey.get(e.source) as Source;
        const factor = compileValue(e.factor, 1, store)();
        this.ramped(e, start, ramp, () => src.scale, factor, (v) => {
          src.scale = v;
          src.reschedule();
        });
        break;
      }
      case 'setSlots': {
        const st = this.sim.stationByKey.get(e.station) as Station;
        const slots = compileValue(e.slots, 0, store)();
        const gates = st.pool ? [st.pool] : st.instances.map((i) => i.gate);
        this.ramped(e, start, ramp, () => gates[0].slots(), slots, (v) => {
          for (const g of gates) g.override = Math.round(v);
          this.sim.refresh();
        });
        break;
      }
      case 'setErrorRate': {
        const st = this.sim.stationByKey.get(e.station) as Station;
        const value = compileValue(e.value, 0, store)();
        this.at(start, e.key, () => {
          st.errorOverride = value;
        });
        break;
      }
      case 'blackhole': {
        const st = this.sim.stationByKey.get(e.station) as Station;
        this.at(start, e.key, () => {
          st.blackholed = true;
        });
        break;
      }
      case 'restore': {
        const st = this.sim.stationByKey.get(e.station) as Station;
        this.at(start, e.key, () => st.restore());
        break;
      }
      case 'cacheFlush': {
        const cache = this.sim.caches.get(e.cache) as CacheRt;
        const nodes = Math.round(compileValue(e.fraction, 0, store)() * cache.nodes);
        const over = e.over === undefined ? 0 : compileValue(e.over, 0, store)();
        for (let i = 0; i < nodes; i++) {
          const t = start + (nodes > 1 ? (over * i) / (nodes - 1) : 0);
          this.at(t, e.key, () => cache.flushNode());
        }
        break;
      }
      case 'throttle': {
        const st = this.sim.stationByKey.get(e.station) as Station;
        const admit = compileValue(e.admit, 1, store)();
        this.ramped(e, start, ramp, () => st.admitOverride ?? (st.admit ? st.admit() : 1), admit, (v) => {
          st.admitOverride = v;
        });
        break;
      }
      case 'stop': {
        const st = this.sim.stationByKey.get(e.station) as Station;
        this.at(start, e.key, () => st.stop());
        break;
      }
      case 'start': {
        const st = this.sim.stationByKey.get(e.station) as Station;
        this.at(start, e.key, () => st.start());
        break;
      }
      case 'cancelEvents': {
        this.at(start, e.key, () => {
          for (const k of e.keys) this.sim.cancelled.add(k);
        });
        break;
      }
    }
  }
}
