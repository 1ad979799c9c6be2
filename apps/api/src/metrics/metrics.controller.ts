import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { Public } from '../auth/roles.decorator';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { MetricsService } from './metrics.service';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Prometheus text format. Metrics reveal traffic and load, not data, but they are still not for
 * everyone: with METRICS_TOKEN set a scraper must send it as a bearer token; without it only
 * clients on this machine (loopback) may read them. API tokens do not apply here.
 */
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.allowed(req)) {
      res
        .status(this.config.metricsToken ? 401 : 403)
        .type('text/plain')
        .send(this.config.metricsToken ? 'Send Authorization: Bearer <METRICS_TOKEN>.\n' : 'Metrics are served to loopback clients only; set METRICS_TOKEN to scrape from elsewhere.\n');
      return;
    }
    res.type(this.metrics.registry.contentType).setHeader('Cache-Control', 'no-store').send(await this.metrics.registry.metrics());
  }

  private allowed(req: Request): boolean {
    const expected = this.config.metricsToken;
    if (!expected) return LOOPBACK.has(req.socket.remoteAddress ?? '');
    const header = req.headers.authorization ?? '';
    const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
    const wanted = Buffer.from(expected);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }
}
