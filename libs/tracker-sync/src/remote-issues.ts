import { Octokit } from '@octokit/rest';
import { Version3Client } from 'jira.js';
import { RetryBudget } from './retry-budget';
import type { TrackerSyncOptions } from './tracker-sync-options';

/** An issue in a tracker, as a follow-up's reference names it. */
export type RemoteIssue = { tracker: 'github'; owner: string; repo: string; number: number } | { tracker: 'jira'; key: string };

export type RemoteState = 'open' | 'closed';

export function describeIssue(issue: RemoteIssue): string {
  return issue.tracker === 'github' ? `${issue.owner}/${issue.repo}#${issue.number}` : issue.key;
}

/** The issue a stored reference points at, when it is a GitHub issue or a Jira key this installation syncs. */
export function remoteIssueOf(ref: { kind: string; ref: string; url: string | null }): RemoteIssue | null {
  if (ref.kind === 'github_issue') {
    const short = /^([^/\s]+)\/([^/#\s]+)#(\d+)$/.exec(ref.ref);
    if (short) return { tracker: 'github', owner: short[1]!, repo: short[2]!, number: Number(short[3]) };
    const url = /\/([^/]+)\/([^/]+)\/issues\/(\d+)/.exec(ref.url ?? ref.ref);
    if (url) return { tracker: 'github', owner: url[1]!, repo: url[2]!, number: Number(url[3]) };
  }
  if (ref.kind === 'jira') {
    const key = /([A-Z][A-Z0-9_]{1,19}-\d+)/.exec(ref.ref);
    if (key) return { tracker: 'jira', key: key[1]! };
  }
  return null;
}

function status(error: unknown): number | null {
  const e = error as { status?: unknown; response?: { status?: unknown } };
  const s = typeof e?.status === 'number' ? e.status : typeof e?.response?.status === 'number' ? e.response.status : null;
  return s;
}

/** Network failures, timeouts, 429 and 5xx are worth another try; 4xx are not. */
function retryable(error: unknown): boolean {
  const s = status(error);
  return s === null || s === 429 || s >= 500;
}

/**
 * The trackers' own maintained clients (Octokit for GitHub, jira.js for Jira), each call with a
 * time limit and retries under one shared budget.
 */
export class RemoteIssues {
  private readonly github: Octokit | null;
  private readonly jira: Version3Client | null;
  private readonly budget: RetryBudget;

  constructor(private readonly options: TrackerSyncOptions) {
    this.budget = new RetryBudget(options.retryBudgetPerMinute);
    const timeoutMs = options.timeoutMs;
    this.github = options.github
      ? new Octokit({
          auth: options.github.token,
          baseUrl: options.github.apiUrl,
          userAgent: 'hindsight-tracker-sync',
          // Octokit's own retry and throttling plugins are not loaded: retries go through the budget.
          request: { fetch: (url: string, init: RequestInit) => fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) }) },
        })
      : null;
    this.jira = options.jira
      ? new Version3Client({
          host: options.jira.url,
          authentication: { basic: { email: options.jira.email, apiToken: options.jira.apiToken } },
          baseRequestConfig: { timeout: timeoutMs },
        })
      : null;
  }

  syncs(issue: RemoteIssue): boolean {
    return issue.tracker === 'github' ? this.github !== null : this.jira !== null;
  }

  async state(issue: RemoteIssue): Promise<RemoteState> {
    if (issue.tracker === 'github') {
      const { data } = await this.budget.run(() => this.github!.rest.issues.get({ owner: issue.owner, repo: issue.repo, issue_number: issue.number }), retryable);
      return data.state === 'closed' ? 'closed' : 'open';
    }
    const found = await this.budget.run(() => this.jira!.issues.getIssue({ issueIdOrKey: issue.key, fields: ['status'] }), retryable);
    return (found.fields?.status as { statusCategory?: { key?: string } } | undefined)?.statusCategory?.key === 'done' ? 'closed' : 'open';
  }

  async comment(issue: RemoteIssue, text: string): Promise<void> {
    if (issue.tracker === 'github') {
      await this.budget.run(() => this.github!.rest.issues.createComment({ owner: issue.owner, repo: issue.repo, issue_number: issue.number, body: text }), retryable);
      return;
    }
    await this.budget.run(
      () =>
        this.jira!.issueComments.addComment({
          issueIdOrKey: issue.key,
          comment: { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] },
        }),
      retryable,
    );
  }

  /**
   * Closes the issue. GitHub: state closed (completed). Jira has no "close": the issue moves
   * through the first available workflow transition whose target status is in the done category,
   * since workflows (and transition names) differ per project. Returns what happened, so the
   * caller can say why nothing moved.
   */
  async close(issue: RemoteIssue): Promise<'closed' | 'already-closed' | 'no-done-transition'> {
    if (issue.tracker === 'github') {
      await this.budget.run(() => this.github!.rest.issues.update({ owner: issue.owner, repo: issue.repo, issue_number: issue.number, state: 'closed', state_reason: 'completed' }), retryable);
      return 'closed';
    }
    if ((await this.state(issue)) === 'closed') return 'already-closed';
    const { transitions = [] } = await this.budget.run(() => this.jira!.issues.getTransitions({ issueIdOrKey: issue.key }), retryable);
    const done = transitions.find((t) => t.id && t.isAvailable !== false && t.to?.statusCategory?.key === 'done');
    if (!done) return 'no-done-transition';
    await this.budget.run(() => this.jira!.issues.doTransition({ issueIdOrKey: issue.key, transition: { id: done.id! } }), retryable);
    return 'closed';
  }
}
