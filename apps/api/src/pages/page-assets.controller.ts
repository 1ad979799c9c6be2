import fs from 'node:fs';
import path from 'node:path';
import { Controller, Get, NotFoundException, Param, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/roles.decorator';
import { sendRevalidated } from '../common/revalidated';
import { PageErrorFilter } from './page-error.filter';

/** The pages' own stylesheet and script, served by the app: no CDN, nothing third-party. */
const PAGE_ASSETS: Record<string, string> = {
  'pages.css': 'text/css; charset=utf-8',
  'pages.js': 'text/javascript; charset=utf-8',
};

/** Beside this file, in the sources and in the build alike (`npm run build` copies the folder). */
function assetPath(name: string): string {
  return path.join(__dirname, 'assets', name);
}

// Open like the explorer's assets: a stylesheet reveals nothing, and a sign-in page would need it.
@Public()
@Controller('assets')
@UseFilters(PageErrorFilter)
export class PageAssetsController {
  private readonly cache = new Map<string, Buffer>();

  @Get(':name')
  asset(@Param('name') name: string, @Res() res: Response): void {
    const type = PAGE_ASSETS[name];
    if (!type) throw new NotFoundException(`No asset named ${name}.`);
    let body = this.cache.get(name);
    if (!body) {
      body = fs.readFileSync(assetPath(name));
      this.cache.set(name, body);
    }
    // Revalidated on every use (Express answers 304 from the ETag), so an upgrade never
    // leaves a reader with a stale script next to new markup.
    res.type(type).setHeader('Cache-Control', 'no-cache');
    sendRevalidated(res, body);
  }
}
