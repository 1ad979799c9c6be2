/** Where and how follow-up changes are announced. With no subscribers nothing runs. */
export interface NotificationOptions {
  /** Receivers of the signed webhooks (`NOTIFY_WEBHOOK_URLS`). */
  subscribers: readonly string[];
  /** Shared secret of the HMAC-SHA256 signature (`NOTIFY_WEBHOOK_SECRET`). */
  secret: string;
  /** How often the audit trail and due dates are read for new notices (`NOTIFY_POLL_MS`). */
  pollMs: number;
  /** Time limit of one delivery (`NOTIFY_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Deliveries tried again after a failure, with exponential backoff (`NOTIFY_RETRY_LIMIT`). */
  retryLimit: number;
  /** Base URL of the pages, for links in the notices (`PUBLIC_URL`); null: no links. */
  publicUrl: string | null;
}

export const NOTIFICATION_OPTIONS = Symbol('NOTIFICATION_OPTIONS');
