import { Module } from '@nestjs/common';
import { ModelsModule } from '../models/models.module';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** Prometheus metrics: the registry, its collectors, and `/metrics`. */
@Module({
  imports: [ModelsModule],
  controllers: [MetricsController],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule {}
