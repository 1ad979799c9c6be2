import os from 'node:os';
import type { Actor } from '@hindsight/tracking';

/** Whoever runs a CLI tool has database access, i.e. is an admin; the audit trail names their OS user. */
export function cliActor(): Actor {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): the events still say they came from the CLI.
  }
  return { name: `cli:${user}`, tokenId: null };
}
