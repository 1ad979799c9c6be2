import type { Server } from 'node:http';
import net from 'node:net';
import type { NextFunction, Request, Response } from 'express';

export interface DrainResult {
  /** Requests still running when the deadline passed; their connections were closed. */
  cut: number;
  /** Requests that were in flight when the drain began. */
  inFlightAtStart: number;
}

/**
 * Lets a stopping server finish what it has started: once `drain` is called the listening socket
 * closes (no new connections), requests already running get until the deadline to finish (their
 * responses carry `Connection: close`), and a request that arrives on an open keep-alive
 * connection meanwhile gets a 503 with `Connection: close` at once, so its client retries
 * elsewhere instead of being reset. When nothing is left running, the remaining connections are
 * closed. Only after this may the database go away.
 */
export class HttpDrain {
  private draining = false;
  private readonly inFlight = new Set<Response>();
  private settle: (() => void) | null = null;
  private cutShort: (() => void) | null = null;

  get isDraining(): boolean {
    return this.draining;
  }

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    if (this.draining) {
      res
        .status(503)
        .setHeader('Connection', 'close')
        .setHeader('Retry-After', '1')
        .json({ code: 'SERVICE_UNAVAILABLE', message: 'The server is shutting down; retry shortly.' });
      return;
    }
    this.inFlight.add(res);
    const done = () => {
      this.inFlight.delete(res);
      if (this.draining && this.inFlight.size === 0) this.settle?.();
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };

  /** Resolves once every request in flight has answered, or after `graceMs` with the rest cut. */
  async drain(server: Server | undefined, graceMs: number): Promise<DrainResult> {
    this.draining = true;
    const inFlightAtStart = this.inFlight.size;
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    // Only the listening socket: http.Server#close would also drop idle keep-alive connections
    // at once, and a client sending on one at that moment sees a reset instead of the 503.
    const closed = server?.listening ? new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve())) : Promise.resolve();
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.settle = resolve;
        this.cutShort = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    const cut = this.inFlight.size;
    server?.closeIdleConnections();
    server?.closeAllConnections();
    await closed;
    return { cut, inFlightAtStart };
  }

  /** A second signal: stop waiting for the requests still running. */
  hurry(): void {
    this.cutShort?.();
  }
}
