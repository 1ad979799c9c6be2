import type { ModelTemplate } from '../template.types';
import { cacheLossTemplate } from './cache-loss.template';
import { capacityLossTemplate } from './capacity-loss.template';
import { connectionCapTemplate } from './connection-cap.template';
import { deadlineQueueTemplate } from './deadline-queue.template';
import { thunderingHerdTemplate } from './thundering-herd.template';
import { feedbackLoopTemplate } from './feedback-loop.template';
import { retryAmplificationTemplate } from './retry-amplification.template';
import { slotExhaustionTemplate } from './slot-exhaustion.template';
import { resourceExhaustionTemplate } from './resource-exhaustion.template';
import { badChangeTemplate } from './bad-change.template';
import { exposureWindowTemplate } from './exposure-window.template';

/** Every template, in the order they are listed to people. */
export const TEMPLATES: readonly ModelTemplate[] = [retryAmplificationTemplate, feedbackLoopTemplate, cacheLossTemplate, slotExhaustionTemplate, connectionCapTemplate, thunderingHerdTemplate, deadlineQueueTemplate, capacityLossTemplate, resourceExhaustionTemplate, badChangeTemplate, exposureWindowTemplate];

export function findTemplate(key: string): ModelTemplate | undefined {
  return TEMPLATES.find((t) => t.key === key);
}
