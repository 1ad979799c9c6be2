import DataLoader from 'dataloader';
import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import type { ScenarioRecord } from './model-runs.types';

/**
 * Which scenario of its incident's model stands for an actionable's fix: the scenario whose
 * `actionableKey` is the actionable's key. Tracking knows nothing of model tables; the API asks
 * this, in batches, for `Actionable.scenario`.
 */
@Injectable()
export class ModelScenarioLink {
  constructor(private readonly prisma: PrismaService) {}

  /** Same length and order as `actionableIds`; null where an actionable has no scenario. */
  async scenariosFor(actionableIds: readonly string[]): Promise<(ScenarioRecord | null)[]> {
    const actionables = await this.prisma.actionable.findMany({ where: { id: { in: [...actionableIds] } }, select: { id: true, incidentId: true, key: true } });
    const scenarios =
      actionables.length === 0
        ? []
        : await this.prisma.scenario.findMany({
            where: { OR: actionables.map((a) => ({ incidentId: a.incidentId, actionableKey: a.key })) },
            select: { id: true, incidentId: true, key: true, position: true, title: true, description: true, actionableKey: true },
            orderBy: { position: 'asc' },
          });
    // Several scenarios may model one fix (say, at two dates); the first one listed speaks for it.
    const byKey = new Map<string, ScenarioRecord>();
    for (const s of scenarios) if (!byKey.has(`${s.incidentId}:${s.actionableKey}`)) byKey.set(`${s.incidentId}:${s.actionableKey}`, s);
    const byActionable = new Map(actionables.map((a) => [a.id, byKey.get(`${a.incidentId}:${a.key}`) ?? null]));
    return actionableIds.map((id) => byActionable.get(id) ?? null);
  }
}

/** Per-request batching of `ModelScenarioLink.scenariosFor`, keyed by actionable id. */
export class ActionableScenarioLoaders {
  constructor(private readonly link: ModelScenarioLink) {}

  readonly scenario = new DataLoader<string, ScenarioRecord | null>((ids) => this.link.scenariosFor(ids));
}
