import { Module } from '@nestjs/common';
import { IncidentsModule } from '../incidents/incidents.module';
import { ModelsModule } from '../models/models.module';
import { NodeResolver } from './node.resolver';

/** Object identification: `node`, `nodes` and `actionable` by global id. */
@Module({
  imports: [IncidentsModule, ModelsModule],
  providers: [NodeResolver],
})
export class NodeModule {}
