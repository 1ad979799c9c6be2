import { parseArgs } from 'node:util';
import { ROLES, ApiTokensService, type ApiTokenRecord, type Role } from '@hindsight/tracking';
import { cliActor } from './cli-actor';
import { withDatabase } from './cli-database';

const USAGE = `usage:
  npm run token -- create --name <name> --role <${ROLES.join('|')}>
  npm run token -- list
  npm run token -- revoke <name or id> [--note <why>]`;

function row(t: ApiTokenRecord): string {
  const when = (d: Date | null) => (d ? d.toISOString().replace(/\.\d+Z$/, 'Z') : '-');
  return [t.id, t.name, t.role, `${t.prefix}…`, when(t.createdAt), when(t.lastUsedAt), t.revokedAt ? `revoked ${when(t.revokedAt)}` : 'active'].join('\t');
}

/**
 * `npm run token -- create|list|revoke`: API tokens for the GraphQL API. A new token is printed
 * once and only its SHA-256 is stored, so it cannot be shown again; revoke and create another.
 */
export async function main(argv: string[] = []): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, role: { type: 'string' }, note: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const tokens = (work: (service: ApiTokensService) => Promise<number>) =>
    withDatabase((prisma) => work(new ApiTokensService(prisma)));

  switch (command) {
    case 'create': {
      if (!values.name || !values.role || !ROLES.includes(values.role as Role)) {
        console.error(`create needs --name and --role (${ROLES.join(', ')})\n${USAGE}`);
        return 2;
      }
      return tokens(async (service) => {
        const { token, record } = await service.create(values.name!, values.role as Role, cliActor());
        console.log(`Created ${record.role} token "${record.name}" (${record.id}).`);
        console.log('Store it now; it is not stored anywhere and cannot be shown again:');
        console.log(`token: ${token}`);
        console.log('Send it as: Authorization: Bearer <token>');
        return 0;
      });
    }
    case 'list':
      return tokens(async (service) => {
        const all = await service.list();
        console.log(['id', 'name', 'role', 'prefix', 'created', 'last used', 'state'].join('\t'));
        for (const t of all) console.log(row(t));
        return 0;
      });
    case 'revoke': {
      const which = target ?? values.name;
      if (!which) {
        console.error(`revoke needs a token name or id\n${USAGE}`);
        return 2;
      }
      return tokens(async (service) => {
        const t = await service.revoke(which, cliActor(), values.note ?? null);
        console.log(`Token "${t.name}" is revoked (since ${t.revokedAt!.toISOString()}).`);
        return 0;
      });
    }
    default:
      console.error(`unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}
