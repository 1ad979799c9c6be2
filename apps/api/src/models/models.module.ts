import { Module, type OnApplicationBootstrap, type OnModuleDestroy, Inject, Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { MODEL_EXECUTOR, MODEL_RUN_OPTIONS, ModelRunQueue, ModelRunsService, ModelScenarioLink, runnerExecutor, type ClosableExecutor } from '@hindsight/model-runs';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { IncidentModelFieldResolver, IncidentModelResolver, ModelRunResolver, ModelScenarioResolver, ModelsResolver } from './models.resolver';

/** With MODEL_EXECUTION=queue, runs go to `npm run worker` processes through pg-boss. */
@Injectable()
class ModelQueueWiring implements OnApplicationBootstrap, OnModuleDestroy {
  private queue: ModelRunQueue | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
    private readonly models: ModelRunsService,
    @Inject(MODEL_EXECUTOR) private readonly executor: ClosableExecutor,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.models.execution !== 'queue') return;
    const queue = new ModelRunQueue(this.prisma.connectionString);
    this.queue = queue;
    this.models.enqueue = (runId) => queue.enqueue(runId);
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue?.stop();
    await this.executor.close();
  }
}

@Module({
  providers: [
    { provide: MODEL_RUN_OPTIONS, inject: [APP_CONFIG], useFactory: (c: AppConfig) => ({ execution: c.models.execution, defaultSeed: c.models.defaultSeed }) },
    { provide: MODEL_EXECUTOR, inject: [APP_CONFIG], useFactory: (c: AppConfig) => runnerExecutor(c.models) },
    ModelRunsService,
    ModelScenarioLink,
    ModelQueueWiring,
    ModelsResolver,
    IncidentModelFieldResolver,
    IncidentModelResolver,
    ModelScenarioResolver,
    ModelRunResolver,
  ],
  exports: [ModelRunsService, ModelScenarioLink],
})
export class ModelsModule {}
