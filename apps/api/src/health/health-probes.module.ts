import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthProbesController } from './health-probes.controller';

/** Liveness and readiness probes (`/health/live`, `/health/ready`) built on @nestjs/terminus. */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'json' })],
  controllers: [HealthProbesController],
})
export class HealthProbesModule {}
