import { Controller, Get, Query, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import { DURATION_GROUPS, DURATION_METRICS, IncidentDurationsService, type DurationGroup, type DurationMetric } from '@hindsight/incidents';
import { PageErrorFilter } from './page-error.filter';
import { sendPage } from './page-response';
import { durationsView } from './views/durations.view';

const one = (v: unknown) => (typeof v === 'string' ? v : '');

/** `/durations`: how long incidents took to detect, mitigate and resolve, across incidents. */
@Controller('durations')
@UseFilters(PageErrorFilter)
export class DurationsPageController {
  constructor(private readonly durations: IncidentDurationsService) {}

  @Get()
  async show(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const rawGroup = one(query.by).toUpperCase() || 'ALL';
    const groupBy: DurationGroup = (DURATION_GROUPS as readonly string[]).includes(rawGroup) ? (rawGroup as DurationGroup) : 'ALL';
    const [exclusions, ...rows] = await Promise.all([this.durations.exclusions(), ...DURATION_METRICS.map((metric: DurationMetric) => this.durations.distribution(metric, groupBy, 20))]);
    const tables = DURATION_METRICS.map((metric, k) => ({ metric, rows: rows[k]!, exclusions: exclusions.find((e) => e.metric === metric)! }));
    sendPage(res, 200, durationsView({ groupBy, tables }));
  }
}
