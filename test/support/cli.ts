import { execFile } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '@hindsight/db';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run <command> -- …` as an operator runs it, against the given database. */
export function runCli(command: string, args: string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(projectRoot(), 'scripts', 'cli.js'), command, ...args],
      { cwd: projectRoot(), env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
