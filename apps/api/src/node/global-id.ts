import { AppError } from '@hindsight/domain';

/**
 * Global object ids: every object with an id answers `id` as `base64url("<Type>:<local id>")`,
 * e.g. `SW5jaWRlbnQ6…` for `Incident:3f1c…`. Clients treat them as opaque strings: the same
 * object always has the same id, ids of different objects never collide across types, and
 * `node(id:)` fetches any of them again. The encoding is written by hand: it is two lines, and
 * graphql-relay (which has the same two) would be a dependency for nothing else.
 */
export const NODE_TYPES = [
  'Incident',
  'Actionable',
  'TimelineEvent',
  'CausalFactor',
  'CausalLink',
  'Pattern',
  'AuditEvent',
  'ApiToken',
  'Account',
  'ModelScenario',
  'ModelRun',
  'ModelSpecVersion',
  'Runbook',
  'RunbookCitation',
  'Team',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export function toGlobalId(type: NodeType, localId: string): string {
  return Buffer.from(`${type}:${localId}`, 'utf8').toString('base64url');
}

export interface GlobalId {
  type: NodeType;
  localId: string;
}

/** The type and local id of a global id; BAD_USER_INPUT naming `field` when it is not one. */
export function fromGlobalId(id: string, field: string): GlobalId {
  const text = /^[A-Za-z0-9_-]+$/.test(id) ? Buffer.from(id, 'base64url').toString('utf8') : '';
  const colon = text.indexOf(':');
  const type = text.slice(0, colon);
  const localId = text.slice(colon + 1);
  if (colon < 1 || localId === '' || !(NODE_TYPES as readonly string[]).includes(type)) {
    throw AppError.badField(field, 'is not an id of this API: pass the `id` of an object it returned');
  }
  return { type: type as NodeType, localId };
}

/** The local id behind a global id of one expected type. */
export function localIdOf(id: string, expected: NodeType, field: string): string {
  const parsed = fromGlobalId(id, field);
  if (parsed.type !== expected) throw AppError.badField(field, `is the id of a ${parsed.type}, not of a ${expected}`);
  return parsed.localId;
}

/** Whether `id` reads as a global id of `type` (for arguments that also accept a name). */
export function isGlobalIdOf(id: string, type: NodeType): boolean {
  return Buffer.from(id, 'base64url').toString('utf8').startsWith(`${type}:`);
}
