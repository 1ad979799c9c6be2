import type { NextFunction, Request, Response } from 'express';
import type { MetricsService } from './metrics.service';

/**
 * Times HTTP requests by the route pattern Express matched (`/incidents/:slug`), never the raw
 * URL, so the number of series stays bounded whatever URLs clients send; requests no route
 * matched (404s, refused before routing) share `unmatched`. GraphQL has its own histogram.
 */
export function httpMetrics(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/graphql') return next();
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const pattern = (req.route as { path?: unknown } | undefined)?.path;
      metrics.httpDuration.observe(
        { method: req.method, route: typeof pattern === 'string' ? pattern : 'unmatched', status: `${Math.floor(res.statusCode / 100)}xx` },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  };
}
