import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { formatQuantity, type FixVerdict } from '@hindsight/models';
import { ModelRunsService } from './model-runs.service';

/** True for PREVENTED, false for DELAYED, REDUCED and NOT_PREVENTED; null without a verdict or with nothing to prevent. */
export function failurePrevented(verdict: FixVerdict | null): boolean | null {
  if (!verdict || verdict.outcome === 'NO_FAILURE') return null;
  return verdict.outcome === 'PREVENTED';
}

/**
 * Answers tracking's question "which scenario models this actionable's fix, and what did its
 * latest run say?" (the `ScenarioLink` seam), without tracking knowing about model tables.
 */
@Injectable()
export class ModelScenarioLink {
  constructor(
    private readonly prisma: PrismaService,
    private readonly models: ModelRunsService,
  ) {}

  async scenariosFor(actionableIds: readonly string[]) {
    const scenarios = await this.scenarioRows(actionableIds);
    return actionableIds.map((id) => {
      const s = scenarios.get(id);
      return s ? { id: s.id, key: s.key, name: s.title } : null;
    });
  }

  async latestRunsFor(actionableIds: readonly string[]) {
    const scenarios = await this.scenarioRows(actionableIds);
    const runs = await this.models.latestRuns([...new Set([...scenarios.values()].map((s) => s.incidentId))]);
    return actionableIds.map((id) => {
      const s = scenarios.get(id);
      const run = s ? runs.get(`${s.incidentId}:${s.key}`) : undefined;
      if (!s || !run) return null;
      const verdict = run.status === 'succeeded' ? run.verdict : null;
      return {
        id: run.id,
        scenarioId: s.id,
        finishedAt: run.finishedAt,
        status: run.status,
        verdict: verdict && { ...verdict, delaySeconds: verdict.delay },
        // The verdict decides, never the scenario's own checks: a check that says "this fix alone
        // is not enough" passes while the failure still happens.
        failurePrevented: failurePrevented(verdict),
        summary: run.summary ? run.summary.map((f) => `${f.label}: ${formatQuantity(f.value, f.unit)}`).join('; ') : null,
      };
    });
  }

  private async scenarioRows(actionableIds: readonly string[]) {
    const actionables = await this.prisma.actionable.findMany({ where: { id: { in: [...actionableIds] } }, select: { id: true, incidentId: true, key: true } });
    const scenarios =
      actionables.length === 0
        ? []
        : await this.prisma.scenario.findMany({
            where: { OR: actionables.map((a) => ({ incidentId: a.incidentId, actionableKey: a.key })) },
            orderBy: { position: 'asc' },
          });
    // Several scenarios may model one fix (say, at two dates); the first one listed speaks for it.
    const byKey = new Map<string, (typeof scenarios)[number]>();
    for (const s of scenarios) if (!byKey.has(`${s.incidentId}:${s.actionableKey}`)) byKey.set(`${s.incidentId}:${s.actionableKey}`, s);
    return new Map(
      actionables.flatMap((a) => {
        const s = byKey.get(`${a.incidentId}:${a.key}`);
        return s ? [[a.id, s] as const] : [];
      }),
    );
  }
}
