/** The body of one webhook delivery. Its `id` is stable across retries: receivers deduplicate by it. */
export interface Notice {
  id: string;
  type: 'actionable.created' | 'actionable.updated' | 'actionable.deleted' | 'actionable.overdue';
  at: string;
  /** Who made the change (a token, an account, `cli:<user>`); null for overdue notices. */
  actor: string | null;
  actionable: { id: string | null; key: string; incident: string | null; url: string | null };
  /** For updates: the field, its values before and after, and the note given with the change. */
  change: { field: string | null; from: unknown; to: unknown; note: string | null } | null;
}
