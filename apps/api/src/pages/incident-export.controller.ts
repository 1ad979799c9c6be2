import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { IncidentExports } from './incident-exports';

/**
 * The same incident and pattern data as the pages, as documents for runbook tools:
 * `/incidents/<slug>.md`, `/incidents/<slug>.json` (or the page with `Accept: application/json`),
 * `/patterns/<key>.md` and `.json`. Readable by whoever may read the page. Errors are the API's
 * JSON errors (the app's error filter), not HTML pages: the readers are programs.
 */
@Controller()
export class IncidentExportController {
  constructor(private readonly exports: IncidentExports) {}

  @Get('incidents/:slug.json')
  incidentJson(@Param('slug') slug: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.exports.sendIncident(slug, 'json', req, res);
  }

  @Get('incidents/:slug.md')
  incidentMarkdown(@Param('slug') slug: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.exports.sendIncident(slug, 'md', req, res);
  }

  @Get('patterns/:pattern.json')
  patternJson(@Param('pattern') key: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.exports.sendPattern(key, 'json', query, req, res);
  }

  @Get('patterns/:pattern.md')
  patternMarkdown(@Param('pattern') key: string, @Query() query: Record<string, unknown>, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.exports.sendPattern(key, 'md', query, req, res);
  }
}
