import fs from 'node:fs';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Controller, Get, Inject, NotFoundException, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { sendRevalidated } from '../common/revalidated';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { EXPLORER_ASSETS, explorerAssetPath } from './explorer.plugin';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * The explorer's bundles never change while the process runs, and graphiql.js is 3.5 MB: so each
 * is compressed once (off the main thread) and kept, instead of by the compression middleware on
 * every request, which cost about 140 ms (gzip) and 230 ms (br) of CPU per download.
 */
const ENCODERS: Record<'br' | 'gzip', (body: Buffer) => Promise<Buffer>> = {
  br: (body) => brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body) => gzip(body, { level: 9 }),
};

@Controller('explorer/assets')
export class ExplorerController {
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get(':name')
  async asset(@Param('name') name: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const asset = EXPLORER_ASSETS[name];
    // With introspection off (GRAPHQL_INTROSPECTION=false) there is no explorer to serve.
    if (!asset || !this.config.graphql.introspection) throw new NotFoundException();
    const accepted = req.acceptsEncodings('br', 'gzip', 'identity');
    const encoding = accepted === 'br' || accepted === 'gzip' ? accepted : 'identity';
    const body = await this.body(name, encoding, () => fs.promises.readFile(explorerAssetPath(name, asset)));
    res.type(asset.type).setHeader('Cache-Control', 'public, max-age=86400').setHeader('Vary', 'Accept-Encoding');
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    sendRevalidated(res, body);
  }

  private body(name: string, encoding: 'br' | 'gzip' | 'identity', read: () => Promise<Buffer>): Promise<Buffer> {
    const key = `${name}:${encoding}`;
    let body = this.cache.get(key);
    if (!body) {
      body = encoding === 'identity' ? read() : this.body(name, 'identity', read).then(ENCODERS[encoding]);
      // A failed read is not remembered: the next request tries again.
      body.catch(() => this.cache.delete(key));
      this.cache.set(key, body);
    }
    return body;
  }
}
