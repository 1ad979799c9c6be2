import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { PrismaService } from '@hindsight/db';

@Controller('health')
export class HealthController {
  constructor(private readonly prisma: PrismaService) {}

  /** 200 when the database answers within its timeout, 503 otherwise. */
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
      res.status(503).json({ status: 'unavailable', database: { status: 'down', error: (error as Error).message } });
    }
  }
}
