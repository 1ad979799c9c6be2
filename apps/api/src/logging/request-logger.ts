import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Logger as PinoLogger } from 'pino';
import { pinoHttp } from 'pino-http';
import { requestContext } from './app-logger';

export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's id is kept when it is a plain token (a proxy's UUID, a trace id), else replaced. */
const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(given) ? given[0] : given;
  return value && ACCEPTED_ID.test(value) ? value : randomUUID();
}

/** The path without its query string: queries can carry what-if parameters, never needed in a log. */
function pathOf(url: string | undefined): string {
  const raw = url ?? '';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

/**
 * One line per request (method, path, status, time, request id), and the request id on every
 * other line written while the request is served. The id comes from `x-request-id` when the
 * caller sends a usable one and is returned in the same header. No header is logged: they are
 * where credentials travel.
 */
export function requestLogger(logger: PinoLogger) {
  const http = pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = requestIdOf(req);
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    customAttributeKeys: { reqId: 'reqId', responseTime: 'durationMs' },
    serializers: {
      req: (req: { id: string; method: string; url: string; remoteAddress?: string }) => ({ method: req.method, path: pathOf(req.url), remoteAddress: req.remoteAddress }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    // Probes and scrapes arrive every few seconds; they are worth a line only when they fail.
    customLogLevel: (req, res, error) =>
      error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : /^\/(health|metrics)(\/|$)/.test(pathOf(req.url)) ? 'debug' : 'info',
    customSuccessMessage: (req, res) => `${req.method} ${pathOf(req.url)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req.url)} ${res.statusCode}`,
    // pino-http makes up an Error, stack and all, for every 5xx answer. A fault is logged once by
    // the error mapping, and a deliberate 503 (shedding, draining) by its own warning, so the
    // request line keeps only the status: no stack per shed request under overload.
    customErrorObject: (_req, _res, _error, value: Record<string, unknown>) => {
      const { err: _dropped, ...rest } = value;
      return rest;
    },
    // The request's own lines already carry reqId through the mixin; avoid a second copy.
    quietReqLogger: true,
  });
  return (req: Request, res: Response, next: NextFunction) => {
    // With LOG_LEVEL=silent no line is ever written: the caller still gets its id back, but no
    // request is given a child logger, listeners or a request context. (Entering an
    // AsyncLocalStorage context turns on Node's promise hooks, a cost on every promise.)
    if (!logger.isLevelEnabled('fatal')) {
      res.setHeader(REQUEST_ID_HEADER, requestIdOf(req));
      next();
      return;
    }
    http(req as IncomingMessage, res as ServerResponse);
    requestContext.run({ reqId: String((req as IncomingMessage & { id?: unknown }).id) }, next);
  };
}
