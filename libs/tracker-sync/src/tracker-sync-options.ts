/** Credentials and behaviour of the two-way sync with issue trackers; a tracker left null is not synced. */
export interface TrackerSyncOptions {
  github: {
    /** REST API base, `https://api.github.com` or a GitHub Enterprise `https://host/api/v3` (`GITHUB_API_URL`). */
    apiUrl: string;
    /** Token with issues read (and write, for write-back) access (`GITHUB_TOKEN`). */
    token: string;
    /** Secret of the repository or organization webhook (`GITHUB_WEBHOOK_SECRET`); null: the endpoint refuses every delivery. */
    webhookSecret: string | null;
  } | null;
  jira: {
    /** Site URL, e.g. `https://acme.atlassian.net` (`JIRA_URL`). */
    url: string;
    /** Account e-mail and API token for basic auth (`JIRA_EMAIL`, `JIRA_API_TOKEN`). */
    email: string;
    apiToken: string;
    /** Secret of the Jira webhook (`JIRA_WEBHOOK_SECRET`); null: the endpoint refuses every delivery. */
    webhookSecret: string | null;
  } | null;
  /** Whether a status change here comments on the linked issues and closes GitHub issues (`TRACKER_SYNC_WRITE_BACK`). */
  writeBack: boolean;
  /** Time limit of one call to a tracker (`TRACKER_SYNC_TIMEOUT_MS`). */
  timeoutMs: number;
  /** How often new links and status changes are looked for (`TRACKER_SYNC_POLL_MS`). */
  pollMs: number;
  /** Retries allowed per minute across all calls, beyond each call's first try (`TRACKER_SYNC_RETRY_BUDGET`). */
  retryBudgetPerMinute: number;
}

export const TRACKER_SYNC_OPTIONS = Symbol('TRACKER_SYNC_OPTIONS');
