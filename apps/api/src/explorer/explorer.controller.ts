import fs from 'node:fs';
import path from 'node:path';
import { Controller, Get, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { projectRoot } from '@hindsight/db';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { EXPLORER_ASSETS } from './explorer.plugin';

@Controller('explorer/assets')
export class ExplorerController {
  private readonly cache = new Map<string, Buffer>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get(':name')
  asset(@Param('name') name: string, @Res() res: Response): void {
    const asset = EXPLORER_ASSETS[name];
    // With introspection off (GRAPHQL_INTROSPECTION=false) there is no explorer to serve.
    if (!asset || !this.config.graphql.introspection) throw new NotFoundException();
    let body = this.cache.get(name);
    if (!body) {
      const pkgDir = path.dirname(require.resolve(`${asset.pkg}/package.json`, { paths: [projectRoot()] }));
      body = fs.readFileSync(path.join(pkgDir, asset.file));
      this.cache.set(name, body);
    }
    res.type(asset.type).setHeader('Cache-Control', 'public, max-age=86400').send(body);
  }
}
