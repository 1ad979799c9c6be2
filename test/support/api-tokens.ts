import { ApiTokensService, type Role } from '@hindsight/tracking';
import { testPrisma } from './test-db';
import type { TestApp } from './test-app';

export type RoleTokens = Record<Role, string>;

/** One token per role on the suite's database, and the Authorization header for each. */
export async function issueTokens(t: TestApp): Promise<{ tokens: RoleTokens; as: (role: Role) => Record<string, string> }> {
  const prisma = testPrisma(t.db.url);
  try {
    const service = new ApiTokensService(prisma);
    const actor = { name: 'test-setup', tokenId: null };
    const tokens = {} as RoleTokens;
    for (const role of ['viewer', 'editor', 'admin'] as const) tokens[role] = (await service.create(`${role}-token`, role, actor)).token;
    return { tokens, as: (role) => ({ Authorization: `Bearer ${tokens[role]}` }) };
  } finally {
    await prisma.onModuleDestroy();
  }
}
