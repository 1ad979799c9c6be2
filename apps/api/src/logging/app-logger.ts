import { AsyncLocalStorage } from 'node:async_hooks';
import { Writable } from 'node:stream';
import { Logger, type LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { AppConfig } from '../config/app-config';

/** The request a log line belongs to, carried through async calls without passing it around. */
export const requestContext = new AsyncLocalStorage<{ reqId: string }>();

/**
 * Where a secret could end up in a log object. The request serializer below keeps no headers at
 * all; these paths catch anything else that logs a request, a response or a config object.
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  'token',
  '*.token',
  'password',
  '*.password',
  'databaseUrl',
  '*.databaseUrl',
  'connectionString',
  '*.connectionString',
  'metricsToken',
  '*.metricsToken',
];

/**
 * Secrets that can hide inside free text (an error message quoting a header or a URL): API tokens,
 * bearer credentials, and the password part of a connection URL.
 */
const SECRET_PATTERNS: [RegExp, string][] = [
  [/\bhs_[A-Za-z0-9_-]{6,}/g, 'hs_[redacted]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, '$1:[redacted]@'],
];

export function scrubSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

export interface AppLoggerOptions {
  level: AppConfig['log']['level'];
  format: AppConfig['log']['format'];
  /** Where lines go; standard output when absent (tests pass a capture stream). */
  destination?: DestinationStream;
}

/** The one pino logger of the process; Nest's `Logger` and the request log both write through it. */
export function createPinoLogger(options: AppLoggerOptions): PinoLogger {
  const destination = options.destination ?? (options.format === 'pretty' ? prettyStream(process.stdout) : pino.destination({ fd: 1, sync: true }));
  return pino(
    {
      level: options.level,
      base: { service: 'hindsight' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Every line written while a request is being served names that request.
      // (pino-http's own request logger already binds it: no second copy of the key.)
      mixin: (_fields, _level, self) => {
        const ctx = requestContext.getStore();
        return ctx && !('reqId' in self.bindings()) ? { reqId: ctx.reqId } : {};
      },
      hooks: {
        // Messages are free text: scrub them too (the redact paths only cover object keys).
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>,
          );
        },
      },
      serializers: {
        err: (error: Error) => ({ type: error.name, message: scrubSecrets(error.message), stack: error.stack ? scrubSecrets(error.stack) : undefined }),
      },
    },
    destination,
  );
}

/**
 * Makes pino the logger of this process: every `new Logger(ctx)` writes through it from now on.
 * Entry points (the server, the queue worker, the CLI tools) call it first.
 */
export function useAppLogger(options: AppLoggerOptions): PinoLogger {
  const logger = createPinoLogger(options);
  Logger.overrideLogger(new PinoNestLogger(logger));
  return logger;
}

/** Nest's logger interface over pino: `new Logger('Ctx').warn(...)` anywhere ends up here. */
export class PinoNestLogger implements LoggerService {
  constructor(readonly pino: PinoLogger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  /** Nest passes `(message, context)` or `(message, stack, context)`; the context comes last. */
  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', message: unknown, rest: unknown[]): void {
    const params = [...rest];
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const stack = typeof params[0] === 'string' && params[0].includes('\n    at ') ? (params.shift() as string) : undefined;
    const fields: Record<string, unknown> = {};
    if (context) fields.context = context;
    if (stack) fields.stack = scrubSecrets(stack);
    if (message instanceof Error) {
      this.pino[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.pino[level](fields, String(message));
    }
  }
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * Short plain lines for a person at a terminal (`12:00:01 INFO  [Hindsight] ready …`), without
 * colour codes and without a dependency such as pino-pretty: the JSON lines stay the format that
 * machines read, this is only a view of them.
 */
export function prettyStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        try {
          const { time, level, context, msg, reqId, err, stack, ...rest } = JSON.parse(line) as Record<string, unknown>;
          delete rest.service;
          // A request line already says method, path and status in its message.
          const took = typeof rest.durationMs === 'number' ? ` ${rest.durationMs} ms` : '';
          for (const key of ['req', 'res', 'durationMs']) delete rest[key];
          const clock = typeof time === 'string' ? time.slice(11, 19) : '';
          const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
          const trace = (err as { stack?: string } | undefined)?.stack ?? (typeof stack === 'string' ? stack : '');
          out.write(
            `${clock} ${(LEVEL_NAMES[level as number] ?? String(level)).padEnd(5)} ${context ? `[${String(context)}] ` : ''}${msg ?? ''}${took}${reqId ? ` (${String(reqId)})` : ''}${extra}\n${trace ? `${trace}\n` : ''}`,
          );
        } catch {
          out.write(`${line}\n`);
        }
      }
      done();
    },
  });
}
