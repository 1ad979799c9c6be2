import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from './support/test-db';

const root = path.resolve(__dirname, '..');
const STACKEGG = 'stackegg-haproxy-session-cap-2015';

/**
 * `npm run build` output, copied to a folder of its own with nothing of the source tree beside
 * it (only node_modules, as a production install has), must migrate, seed and serve pages,
 * assets and the explorer.
 */
describe('the built app runs from dist/ alone', () => {
  let work: string;
  let db: TestDatabase;
  let child: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'hindsight-build-'));
    const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js'), '--out-dir', path.join(work, 'build')], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}\n${build.stderr}`);
    fs.mkdirSync(path.join(work, 'app'));
    fs.cpSync(path.join(work, 'build'), path.join(work, 'app', 'dist'), { recursive: true });
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(work, 'app', 'node_modules'), 'dir');
    db = await createTestDatabase({ migrate: false });
  }, 300_000);

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await db?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('migrates, seeds and serves a page, an asset and the explorer, then stops on SIGTERM', async () => {
    expect(fs.existsSync(path.join(work, 'app', 'apps'))).toBe(false);
    expect(fs.existsSync(path.join(work, 'app', 'prisma'))).toBe(false);
    const proc = spawn(process.execPath, ['dist/apps/api/src/main.js'], {
      cwd: path.join(work, 'app'),
      env: { PATH: process.env.PATH, DATABASE_URL: db.url, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    proc.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    proc.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const base = await new Promise<string>((resolve, reject) => {
      const onData = () => {
        const m = /Hindsight is ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (m) resolve(m[1]!);
      };
      proc.stdout!.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`the built app exited with ${code}:\n${output}`)));
    });

    const page = await fetch(`${base}/incidents/${STACKEGG}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('StackEgg');

    const css = await fetch(`${base}/assets/pages.css`);
    expect(css.status).toBe(200);
    expect(await css.text()).toBe(fs.readFileSync(path.join(root, 'apps/api/src/pages/assets/pages.css'), 'utf8'));

    const explorer = await fetch(`${base}/graphql`, { headers: { Accept: 'text/html' } });
    expect(explorer.status).toBe(200);
    expect(await explorer.text()).toContain('/explorer/assets/graphiql.js');
    const bundle = await fetch(`${base}/explorer/assets/graphiql.js`);
    expect(bundle.status).toBe(200);
    expect(Buffer.from(await bundle.arrayBuffer()).equals(fs.readFileSync(path.join(root, 'node_modules/graphiql/graphiql.min.js')))).toBe(true);

    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);

    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Not at a terminal: every line is JSON, without colour codes.
    const lines = output.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(output).not.toContain('\u001b[');
  }, 300_000);
});
