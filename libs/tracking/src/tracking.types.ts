import type { DiffValue } from '@hindsight/incidents';
import type { ActionableRecord } from '@hindsight/incidents';

// Write-side vocabulary. Like the read models in @hindsight/incidents, Prisma rows satisfy these
// structurally, so no Prisma type appears in a service signature.

export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** True when `held` includes everything `needed` may do (admin ⊃ editor ⊃ viewer). */
export function roleAllows(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

export const ACTIONABLE_PRIORITIES = ['p0', 'p1', 'p2', 'p3'] as const;
export type ActionablePriority = (typeof ACTIONABLE_PRIORITIES)[number];

/** Who made a change, as the audit trail records it. */
export interface Actor {
  /** The API token's name, or `cli:<os user>` for command-line tools. */
  name: string;
  tokenId: string | null;
}

/**
 * An authenticated caller: an API token (`via: 'token'`) or a person's session on the pages
 * (`via: 'session'`). Both carry a role, and the same guard decides what either may do.
 */
export type Principal =
  | (Actor & { via: 'token'; tokenId: string; role: Role; accountId: null; sessionId: null; csrfToken: null })
  | (Actor & { via: 'session'; tokenId: null; role: Role; accountId: string; sessionId: string; csrfToken: string });

/** The key rate limits and quotas count a caller under. */
export function principalKey(p: Principal): string {
  return p.via === 'token' ? `token:${p.tokenId}` : `account:${p.accountId}`;
}

/** An actionable with the tracking fields the read side does not know about. */
export interface TrackedActionableRecord extends ActionableRecord {
  priority: ActionablePriority | null;
  closedAt: Date | null;
  closedBy: string | null;
  wontDoReason: string | null;
}

export const AUDIT_ENTITIES = ['incident', 'timeline_event', 'causal_factor', 'causal_link', 'actionable', 'api_token', 'account', 'team', 'runbook'] as const;
export type AuditEntity = (typeof AUDIT_ENTITIES)[number];

export const AUDIT_ACTIONS = ['create', 'update', 'delete'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** JSON as stored in the audit trail's `from` / `to`: the values of the incident writer's diff. */
export type AuditValue = DiffValue;

export interface AuditEventRecord {
  id: bigint;
  at: Date;
  actor: string;
  actorTokenId: string | null;
  incidentId: string | null;
  actionableId: string | null;
  entity: AuditEntity;
  entityKey: string;
  action: AuditAction;
  field: string | null;
  from: unknown;
  to: unknown;
  note: string | null;
  version: number | null;
}

export interface AccountRecord {
  id: string;
  name: string;
  role: Role;
  createdBy: string;
  createdAt: Date;
  lastSignInAt: Date | null;
  disabledAt: Date | null;
}

export interface ApiTokenRecord {
  id: string;
  name: string;
  role: Role;
  prefix: string;
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** Fields of an actionable a person may set directly (status moves through transitions only). */
export interface ActionablePatch {
  title?: string;
  description?: string;
  /** Free-text owner (as imported); setting it clears an account or team owner. */
  owner?: string | null;
  /** Sign-in name of the account that owns it; setting it clears the other owners. */
  ownerAccount?: string | null;
  /** Name of the team that owns it; setting it clears the other owners. */
  ownerTeam?: string | null;
  /** Calendar date `YYYY-MM-DD`, or null to clear. */
  dueDate?: string | null;
  priority?: ActionablePriority | null;
  /** Keys of causal factors of the same incident; replaces the current list. */
  addresses?: string[];
  /** Tracker references as people write them (`T134456`, `OPS-123`, URLs); replaces the current list. */
  references?: string[];
}

export interface CreateActionableInput extends ActionablePatch {
  /** Slug of the incident the work follows from. */
  incident: string;
  /** Stable key; derived from the title when absent. */
  key?: string | null;
  title: string;
}
