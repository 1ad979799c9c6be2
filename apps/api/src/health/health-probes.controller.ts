import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import type { Response } from 'express';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthIndicatorFunction } from '@nestjs/terminus';
import { migrationsDir, migrationStatus, PrismaService, readMigrations, type MigrationFile } from '@hindsight/db';
import { Public } from '../auth/roles.decorator';
import { withTimeout } from '../common/with-timeout';

/** A probe must answer quickly even when the database does not. */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * Probes for an orchestrator (Kubernetes, compose, a load balancer):
 * - `/health/live`: the process serves HTTP. It touches nothing else, so a database outage
 *   never gets a healthy process restarted.
 * - `/health/ready`: the app can do its work: the database answers and every migration in the
 *   folder is applied. 503 otherwise, so traffic is held back instead of failing.
 * Bodies carry states only, never error text.
 */
@Public()
@Controller('health')
export class HealthProbesController {
  /** The folder is fixed for the life of the process; read it once. */
  private readonly migrations: MigrationFile[] = readMigrations(migrationsDir());

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly prisma: PrismaService,
  ) {}

  @Get('live')
  @HealthCheck()
  live(@Res({ passthrough: true }) res: Response) {
    return this.probe(res, [() => this.indicators.check('process').up({ uptimeSeconds: Math.round(process.uptime()) })]);
  }

  @Get('ready')
  @HealthCheck()
  ready(@Res({ passthrough: true }) res: Response) {
    return this.probe(res, [
      async () => {
        const database = this.indicators.check('database');
        try {
          await withTimeout(this.prisma.pool.query('SELECT 1'), PROBE_TIMEOUT_MS);
          return database.up();
        } catch {
          return database.down({ reason: 'unreachable' });
        }
      },
      async () => {
        const migrations = this.indicators.check('migrations');
        try {
          const status = await withTimeout(migrationStatus(this.prisma.pool, this.migrations), PROBE_TIMEOUT_MS);
          if (status.failed.length > 0) return migrations.down({ reason: 'failed', failed: status.failed });
          if (status.pending.length > 0) return migrations.down({ reason: 'pending', pending: status.pending });
          return migrations.up({ applied: this.migrations.length });
        } catch {
          return migrations.down({ reason: 'unknown' });
        }
      },
    ]);
  }

  /**
   * Terminus reports a failing check by throwing a 503 with the probe's body; the body is answered
   * here as it is, because the app's error filter would turn it into an error code and message.
   */
  private async probe(res: Response, checks: HealthIndicatorFunction[]) {
    try {
      return await this.health.check(checks);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      res.status(503);
      return error.getResponse();
    }
  }
}
