import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { HttpDrain } from './http-drain';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

function get(port: number, path: string, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

describe('HttpDrain', () => {
  let server: http.Server;
  let port: number;
  let drain: HttpDrain;
  let release: () => void;
  let hang: Promise<void>;

  beforeEach(async () => {
    drain = new HttpDrain();
    hang = new Promise((resolve) => (release = resolve));
    const app = express();
    app.use(drain.middleware);
    app.get('/quick', (_req, res) => void res.send('quick'));
    app.get('/slow', (_req, res) => void hang.then(() => res.send('slow done')));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => {
    release();
    server.closeAllConnections();
    server.close();
  });

  it('lets a running request finish, answers a new one on an open connection with 503, and refuses new connections', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    // Two open keep-alive connections; one then carries a request that is still running.
    await Promise.all([get(port, '/quick', agent), get(port, '/quick', agent)]);
    const slow = get(port, '/slow', agent);
    while (drain.requestsInFlight === 0) await new Promise((r) => setImmediate(r));

    const drained = drain.drain(server, 60_000);
    const meanwhile = await get(port, '/quick', agent);
    expect(meanwhile).toMatchObject({ status: 503, connection: 'close' });
    expect(JSON.parse(meanwhile.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(get(port, '/quick', new http.Agent())).rejects.toThrow(/ECONNREFUSED/);

    release();
    expect(await slow).toEqual({ status: 200, connection: 'close', body: 'slow done' });
    expect(await drained).toEqual({ cut: 0, inFlightAtStart: 1 });
    agent.destroy();
  });

  it('closes the connections of requests still running at the deadline, and counts them', async () => {
    const slow = get(port, '/slow', new http.Agent());
    while (drain.requestsInFlight === 0) await new Promise((r) => setImmediate(r));
    expect(await drain.drain(server, 10)).toEqual({ cut: 1, inFlightAtStart: 1 });
    await expect(slow).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  it('stops waiting when hurried by a second signal', async () => {
    const slow = get(port, '/slow', new http.Agent());
    while (drain.requestsInFlight === 0) await new Promise((r) => setImmediate(r));
    const drained = drain.drain(server, 600_000);
    drain.hurry();
    expect(await drained).toEqual({ cut: 1, inFlightAtStart: 1 });
    await expect(slow).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
