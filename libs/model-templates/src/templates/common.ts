import type { TemplateParameter } from '../template.types';

/** Parameters most templates share: when the trigger comes, and how long it lasts. */
export function triggerAtParameter(defaultSeconds = 60): TemplateParameter {
  return {
    name: 'triggerAt', unit: 's', min: 0, max: 3600, default: defaultSeconds,
    defaultWhy: 'A stretch of healthy traffic before the trigger shows that the model is healthy without it.',
    description: 'When the trigger happens, seconds into the run.',
  };
}

export function durationParameter(name: string, description: string, fallback: number, min = 30, max = 4 * 3600): TemplateParameter {
  return {
    name, unit: 's', min, max, default: fallback, timeline: 'failure-duration',
    defaultWhy: `${fallback} s, when the timeline does not give the time from the trigger to the recovery.`,
    description,
  };
}

/** A fluid step short enough for the delays that matter, and long enough to keep long runs cheap. */
export function fluidStep(horizon: number, shortestDelay: number): number {
  const byDelay = Math.max(0.05, Math.min(1, shortestDelay / 4));
  return Number(Math.max(byDelay, horizon / 4000).toPrecision(2));
}

export const TIMEOUT_CUES = /\b(?:time ?-?outs?|timed out|deadline|gave up|give up|gives up)\b/;
export const RETRY_CUES = /\b(?:retr(?:y|ies|ied|ying)|attempts?|tries|tried)\b/;
