import { parseArgs } from 'node:util';
import { AccountsService, ROLES, type AccountRecord, type Role } from '@hindsight/tracking';
import { loadConfig } from '../config/app-config';
import { cliActor } from './cli-actor';
import { withDatabase } from './cli-database';

const USAGE = `usage:
  npm run account -- create <name> --role <${ROLES.join('|')}>
  npm run account -- list
  npm run account -- role <name> <${ROLES.join('|')}>
  npm run account -- disable <name>
  npm run account -- enable <name>
  npm run account -- reset <name>`;

function row(a: AccountRecord): string {
  const when = (d: Date | null) => (d ? d.toISOString().replace(/\.\d+Z$/, 'Z') : '-');
  return [a.name, a.role, when(a.createdAt), when(a.lastSignInAt), a.disabledAt ? `disabled ${when(a.disabledAt)}` : 'active'].join('\t');
}

/**
 * `npm run account -- create|list|role|disable|enable|reset`: people's accounts for the pages.
 * New and reset passwords are generated and printed once; only their bcrypt hash is stored.
 */
export async function main(argv: string[] = []): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { role: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  const [command, name, extra] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const needsName = command !== 'list';
  if (needsName && !name) {
    console.error(`${command} needs an account name\n${USAGE}`);
    return 2;
  }
  const role = (command === 'role' ? extra : values.role) as Role | undefined;
  if ((command === 'create' || command === 'role') && (!role || !ROLES.includes(role))) {
    console.error(`${command} needs a role (${ROLES.join(', ')})\n${USAGE}`);
    return 2;
  }
  const { access } = loadConfig(process.env);
  const accounts = (work: (service: AccountsService) => Promise<number>) => withDatabase((prisma) => work(new AccountsService(prisma, access)));
  const actor = cliActor();
  const printPassword = (password: string) => {
    console.log('Hand this password to the person now; it is not stored and cannot be shown again:');
    console.log(`password: ${password}`);
  };
  switch (command) {
    case 'create':
      return accounts(async (service) => {
        const { account, password } = await service.create(name!, role!, actor);
        console.log(`Created ${account.role} account "${account.name}".`);
        printPassword(password);
        return 0;
      });
    case 'list':
      return accounts(async (service) => {
        console.log(['name', 'role', 'created', 'last sign-in', 'state'].join('\t'));
        for (const a of await service.list()) console.log(row(a));
        return 0;
      });
    case 'role':
      return accounts(async (service) => {
        const a = await service.setRole(name!, role!, actor);
        console.log(`Account "${a.name}" now has role ${a.role}.`);
        return 0;
      });
    case 'disable':
    case 'enable':
      return accounts(async (service) => {
        const a = await service.setDisabled(name!, command === 'disable', actor);
        console.log(a.disabledAt ? `Account "${a.name}" is disabled; its sessions have ended.` : `Account "${a.name}" may sign in.`);
        return 0;
      });
    case 'reset':
      return accounts(async (service) => {
        const { account } = await service.resetPassword(name!, actor).then((r) => {
          printPassword(r.password);
          return r;
        });
        console.log(`Account "${account.name}" has a new password; its sessions have ended.`);
        return 0;
      });
    default:
      console.error(`unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}
