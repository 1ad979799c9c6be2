import fs from 'node:fs';
import { Controller, Get, NotFoundException, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { EXPLORER_ASSETS, explorerAssetPath } from './explorer.plugin';

@Controller('explorer/assets')
export class ExplorerController {
  private readonly cache = new Map<string, Buffer>();

  @Get(':name')
  asset(@Param('name') name: string, @Res() res: Response): void {
    const asset = EXPLORER_ASSETS[name];
    if (!asset) throw new NotFoundException();
    let body = this.cache.get(name);
    if (!body) {
      body = fs.readFileSync(explorerAssetPath(name, asset));
      this.cache.set(name, body);
    }
    res.type(asset.type).setHeader('Cache-Control', 'public, max-age=86400').send(body);
  }
}
