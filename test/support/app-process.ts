import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort, projectRoot } from '@hindsight/db';

/** `npm start` (node scripts/start.js) as a child process, as a user or an orchestrator runs it. */
export interface AppProcess {
  child: ChildProcess;
  port: number;
  base: string;
  /** Everything it printed so far (stdout and stderr, colours off). */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process and its output are gone. */
  exited: Promise<number | string>;
  /** Sends a signal to the process, or to its whole process group when started with `group`; none once it is gone. */
  signal(name: NodeJS.Signals): void;
}

export interface StartOptions {
  env: Record<string, string | undefined>;
  cwd?: string;
  /** The command to run instead of `node scripts/start.js`, e.g. `npm start` in another clone. */
  command?: { file: string; args: string[] };
  /**
   * Run it in a process group of its own and signal the group, as a terminal does: needed for
   * `npm start`, which ends at once on SIGTERM without waiting for the app it started.
   */
  group?: boolean;
}

export async function startAppProcess(options: StartOptions): Promise<AppProcess> {
  const port = await freePort();
  const root = options.cwd ?? projectRoot();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: '1', PORT: String(port), ...options.env })) if (v !== undefined) env[k] = v;
  const command = options.command ?? { file: process.execPath, args: [path.join(root, 'scripts', 'start.js')] };
  const child = spawn(command.file, command.args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.group ?? false });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // 'close' waits for every holder of the output pipes, i.e. for the app under `npm start` too.
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  let gone = false;
  void exited.then(() => (gone = true));
  const signal = (name: NodeJS.Signals) => {
    if (gone) return;
    if (options.group && child.pid) process.kill(-child.pid, name);
    else child.kill(name);
  };
  const app: AppProcess = { child, port, base: `http://127.0.0.1:${port}`, output: () => out, exited, signal };
  await waitForHealth(app);
  return app;
}

/** Polls /health until it answers 200; fails with the app's output if the process exits first. */
export async function waitForHealth(app: AppProcess): Promise<void> {
  let gone: number | string | null = null;
  void app.exited.then((code) => (gone = code));
  for (;;) {
    if (gone !== null) throw new Error(`the app exited (${gone}) before answering /health:\n${app.output()}`);
    const status = await new Promise<number>((resolve) => {
      const req = http.get(`${app.base}/health`, { agent: false, timeout: 2_000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(0));
    });
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One POST /graphql over the given agent; resolves with the whole answer or rejects on a reset. */
export function postGraphql(base: string, body: unknown, options: { agent?: http.Agent; headers?: Record<string, string>; onSent?: () => void } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      `${base}/graphql`,
      { method: 'POST', agent: options.agent ?? false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...options.headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('finish', () => options.onSent?.());
    req.end(payload);
  });
}

export function get(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      })
      .on('error', reject);
  });
}
