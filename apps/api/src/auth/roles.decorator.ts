import { SetMetadata } from '@nestjs/common';
import type { Role } from '@hindsight/tracking';

export const REQUIRED_ROLE = 'hindsight:required-role';
export const PUBLIC_ROUTE = 'hindsight:public-route';

/**
 * The least role a resolver or route needs. Without it, mutations and non-GET routes need
 * `editor`, and reads need `viewer` unless PUBLIC_READ is on.
 */
export const RequireRole = (role: Role) => SetMetadata(REQUIRED_ROLE, role);

/** Open to anyone, even with PUBLIC_READ=false (health checks, static assets). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

export const READ_OPERATION = 'hindsight:read-operation';

/**
 * A mutation that changes nothing a person wrote — it computes a deterministic answer and may
 * cache it (running a model). It is allowed exactly like a query: to anyone while PUBLIC_READ is
 * on, otherwise to viewers and above.
 */
export const ReadOperation = () => SetMetadata(READ_OPERATION, true);
