import { registerEnumType } from '@nestjs/graphql';
import { ACTIONABLE_PRIORITIES, AUDIT_ACTIONS, AUDIT_ENTITIES, type ActionablePriority, type AuditAction, type AuditEntity } from '@hindsight/tracking';

/** GraphQL shows enum values in UPPER_CASE; services and the database keep the domain's words. */
function graphqlEnum<T extends string>(values: readonly T[]): Record<string, T> {
  return Object.fromEntries(values.map((v) => [v.toUpperCase(), v]));
}

export const ActionablePriorityEnum: Record<string, ActionablePriority> = graphqlEnum(ACTIONABLE_PRIORITIES);
export const AuditEntityEnum: Record<string, AuditEntity> = graphqlEnum(AUDIT_ENTITIES);
export const AuditActionEnum: Record<string, AuditAction> = graphqlEnum(AUDIT_ACTIONS);

registerEnumType(ActionablePriorityEnum, { name: 'ActionablePriority', description: 'P0 is the most urgent. Items without a priority sort after P3.' });
registerEnumType(AuditEntityEnum, { name: 'AuditEntity' });
registerEnumType(AuditActionEnum, { name: 'AuditAction' });
