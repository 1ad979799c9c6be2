import { PassThrough } from 'node:stream';
import { createPinoLogger, PinoNestLogger, prettyStream, scrubSecrets } from './app-logger';

describe('the app logger', () => {
  it('prints short plain lines for a terminal, without colour codes', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const nest = new PinoNestLogger(createPinoLogger({ level: 'info', format: 'pretty', destination: prettyStream(out) }));
    nest.log('ready on port 3000', 'Hindsight');
    nest.warn('slow query', 'Db');
    nest.pino.info({ req: { method: 'GET', path: '/x' }, res: { statusCode: 200 }, durationMs: 12, reqId: 'r-1' }, 'GET /x 200');
    expect(text).toMatch(/^\d\d:\d\d:\d\d INFO  \[Hindsight\] ready on port 3000\n\d\d:\d\d:\d\d WARN  \[Db\] slow query\n\d\d:\d\d:\d\d INFO  GET \/x 200 12 ms \(r-1\)\n$/);
    expect(text).not.toContain('\u001b[');
  });

  it('scrubs tokens, credentials and URL passwords from free text', () => {
    expect(scrubSecrets(`token hs_${'x'.repeat(43)} used`)).toBe('token hs_[redacted] used');
    expect(scrubSecrets('Authorization: Bearer abc.def-123')).toBe('Authorization: Bearer [redacted]');
    expect(scrubSecrets('postgresql://app:s3cr%40t@db:5432/x and redis://:pw@cache')).toBe('postgresql://app:[redacted]@db:5432/x and redis://:[redacted]@cache');
    expect(scrubSecrets('postgresql://app@db:5432/x')).toBe('postgresql://app@db:5432/x');
  });
});
