import { Module, type OnApplicationBootstrap, type OnModuleDestroy, Inject, Injectable, Logger } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { MODEL_EXECUTOR, MODEL_RUN_OPTIONS, ModelExplorations, ModelRunQueue, ModelRunsService, ModelScenarioLink, runnerExecutor, type ClosableExecutor, type ModelRunOptions } from '@hindsight/model-runs';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { IncidentsModule } from '../incidents/incidents.module';
import { ModelSuggestionsResolver, SuggestedActionableMatchResolver, UnmatchedActionableResolver } from './model-suggestions.resolver';
import { ModelSuggestionsService } from './model-suggestions.service';
import { ModelExplorationResolver } from './model-exploration.resolver';
import { ActionableScenarioResolver, IncidentModelFieldResolver, IncidentModelResolver, ModelRunResolver, ModelScenarioResolver, ModelsResolver } from './models.resolver';

/** The run options of this installation, shared by the API and `npm run worker`. */
export function modelRunOptions(c: AppConfig, execution: 'inline' | 'queue' = c.models.execution): ModelRunOptions {
  const { defaultSeed, leaseMs, maxAttempts, maxPending, retainPerScenario, retainDays, quotaRuns, quotaWindowSeconds, drainMs } = c.models;
  return { execution, defaultSeed, leaseMs, maxAttempts, maxPending, retainPerScenario, retainDays, quotaRuns, quotaWindowSeconds, drainMs };
}

/**
 * Start and stop of model runs in the API process. With MODEL_EXECUTION=queue, runs go to `npm
 * run worker` processes through pg-boss. In both modes a periodic sweep reclaims runs whose lease
 * ran out (a process that died mid-run). At shutdown the runs in progress are drained before the
 * pool and the queue close; this runs in `onModuleDestroy`, which Nest calls before the global
 * database module closes its pool, so the drain can still record what it released.
 */
@Injectable()
class ModelRunsLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ModelRuns');
  private queue: ModelRunQueue | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
    private readonly models: ModelRunsService,
    @Inject(MODEL_EXECUTOR) private readonly executor: ClosableExecutor,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.models.execution === 'queue') {
      const queue = new ModelRunQueue(this.prisma.connectionString);
      this.queue = queue;
      this.models.enqueue = (runId, attempt) => queue.enqueue(runId, attempt);
    }
    this.models.startSweeping();
  }

  async onModuleDestroy(): Promise<void> {
    const { finished, interrupted } = await this.models.drain(this.config.models.drainMs);
    if (finished + interrupted > 0) this.logger.log(`model runs at shutdown: ${finished} finished, ${interrupted} released`);
    await this.queue?.stop();
    await this.executor.close();
  }
}

@Module({
  imports: [IncidentsModule],
  providers: [
    { provide: MODEL_RUN_OPTIONS, inject: [APP_CONFIG], useFactory: (c: AppConfig) => modelRunOptions(c) },
    { provide: MODEL_EXECUTOR, inject: [APP_CONFIG], useFactory: (c: AppConfig) => runnerExecutor(c.models) },
    ModelRunsService,
    ModelScenarioLink,
    ModelRunsLifecycle,
    ModelsResolver,
    IncidentModelFieldResolver,
    IncidentModelResolver,
    ModelScenarioResolver,
    ActionableScenarioResolver,
    ModelRunResolver,
    ModelSuggestionsResolver,
    SuggestedActionableMatchResolver,
    UnmatchedActionableResolver,
    ModelSuggestionsService,
    ModelExplorations,
    ModelExplorationResolver,
  ],
  exports: [ModelRunsService, ModelSuggestionsService, ModelExplorations],
})
export class ModelsModule {}
