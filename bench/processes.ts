/** What the benches that start servers of their own share. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = 100;

/**
 * Starts a program; resolves when its output matches `ready` (at once when null). Rejects, with
 * the end of its output, if it exits first or is not ready within three minutes.
 */
export function startProcess(cmd: string, args: string[], env: Record<string, string>, cwd: string, ready: RegExp | null): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    if (!ready) resolve(child);
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready?.test(out)) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      if (code !== null && code !== 0) console.error(`${args.join(' ')} exited ${code}: ${out.slice(-2000)}`);
      reject(new Error(`${args.join(' ')} exited ${code}: ${out.slice(-2000)}`));
    });
    if (ready) setTimeout(() => reject(new Error(`${args.join(' ')} did not start: ${out.slice(-2000)}`)), 180_000).unref();
  });
}

/**
 * The environment the read benches start the app with: production mode, no request log unless
 * APP_LOG_LEVEL says otherwise, no seeding, and the per-client write and refusal limits off, so
 * a bench's one client is never throttled.
 */
export function appBenchEnv(databaseUrl: string, port: number, poolMax: number): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    LOG_LEVEL: process.env.APP_LOG_LEVEL ?? 'silent',
    SEED_ON_START: 'false',
    DB_POOL_MAX: String(poolMax),
    RATE_LIMIT_WRITES_PER_TOKEN: '0',
    RATE_LIMIT_WRITES_PER_ADDRESS: '0',
    RATE_LIMIT_MODEL_RUNS_PER_TOKEN: '0',
    RATE_LIMIT_MODEL_RUNS_PER_ADDRESS: '0',
    RATE_LIMIT_REFUSALS_PER_CLIENT: '0',
    NODE_ENV: 'production',
  };
}

/** CPU time (user + system) a process has used, in ms, from /proc (Linux); null elsewhere. */
export function cpuMsOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * Time the process's main thread has spent runnable but waiting on a run queue, in ms, from
 * /proc's schedstat (Linux; the second of its three numbers, in ns); null elsewhere. For a
 * Node.js server the main thread is where every request runs.
 */
export function runQueueWaitMsOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const [, waitNs] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ');
    return Number(waitNs) / 1e6;
  } catch {
    return null;
  }
}

/**
 * Starts the app (`scripts/start.js` in `cwd`, with these Node flags and this environment, which
 * names its PORT) and resolves once it answers a GraphQL request, polling every 0.5 s for up to
 * 3 minutes. Fails, with the process stopped, as soon as it exits (a bad flag, a port in use) or
 * when it never answers.
 */
export async function startApp(cwd: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<ChildProcess> {
  const child = await startProcess(process.execPath, [...nodeFlags, 'scripts/start.js'], env, cwd, null);
  try {
    for (let i = 0; i < 360; i++) {
      if (child.exitCode !== null) throw new Error(`the app exited (${child.exitCode}) before answering on port ${env.PORT}`);
      try {
        const res = await fetch(`http://127.0.0.1:${env.PORT}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
        if (res.ok) return child;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`the app did not answer on port ${env.PORT}`);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
