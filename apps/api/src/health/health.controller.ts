import { Controller, Get, Logger, Res } from '@nestjs/common';
import type { Response } from 'express';
import { PrismaService } from '@hindsight/db';
import { describeFault } from '../common/errors/app-error.mapping';

@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Health');

  constructor(private readonly prisma: PrismaService) {}

  /**
   * 200 when the database answers within its timeout, 503 otherwise. The body says only whether
   * it is up: the driver's error text (host, port, user) is for the server log, not for callers.
   */
  @Get()
  async health(@Res() res: Response): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      const [row] = await this.prisma.$queryRaw<{ version: string; migrations: bigint }[]>`
        SELECT current_setting('server_version') AS version,
               (SELECT count(*) FROM "_prisma_migrations" WHERE finished_at IS NOT NULL) AS migrations`;
      const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
      res.status(200).json({
        status: 'ok',
        database: { status: 'up', serverVersion: row?.version, migrations: Number(row?.migrations ?? 0), latencyMs: Math.round(latencyMs * 10) / 10 },
      });
    } catch (error) {
      this.logger.warn(`database check failed: ${describeFault(error)}`);
      res.status(503).json({ status: 'unavailable', database: { status: 'down' } });
    }
  }
}
