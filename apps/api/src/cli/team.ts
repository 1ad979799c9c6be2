import { parseArgs } from 'node:util';
import { TeamsService } from '@hindsight/tracking';
import { cliActor } from './cli-actor';
import { withDatabase } from './cli-database';

const USAGE = `usage:
  npm run team -- create <team>
  npm run team -- list
  npm run team -- add <team> <account>
  npm run team -- remove <team> <account>
  npm run team -- delete <team>`;

/**
 * `npm run team -- create|list|add|remove|delete`: teams of accounts, which can own follow-ups.
 * The admin GraphQL mutations (createTeam, addTeamMember, …) do the same; both are audited.
 */
export async function main(argv: string[] = []): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  const [command, team, account] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (command !== 'list' && !team) {
    console.error(`${command} needs a team name\n${USAGE}`);
    return 2;
  }
  if ((command === 'add' || command === 'remove') && !account) {
    console.error(`${command} needs an account name\n${USAGE}`);
    return 2;
  }
  const actor = cliActor();
  const teams = (work: (service: TeamsService) => Promise<number>) => withDatabase((prisma) => work(new TeamsService(prisma)));
  switch (command) {
    case 'create':
      return teams(async (service) => {
        const t = await service.create(team!, actor);
        console.log(`Created team "${t.name}".`);
        return 0;
      });
    case 'list':
      return teams(async (service) => {
        console.log(['team', 'members'].join('\t'));
        const all = await service.list();
        const members = await service.membersOf(all.map((t) => t.id));
        for (const t of all) console.log([t.name, members.get(t.id)!.map((m) => m.name).join(', ') || '-'].join('\t'));
        return 0;
      });
    case 'add':
    case 'remove':
      return teams(async (service) => {
        const t = command === 'add' ? await service.addMember(team!, account!, actor) : await service.removeMember(team!, account!, actor);
        const members = (await service.membersOf([t.id])).get(t.id)!.map((m) => m.name);
        console.log(`Team "${t.name}" members: ${members.join(', ') || 'none'}.`);
        return 0;
      });
    case 'delete':
      return teams(async (service) => {
        const t = await service.delete(team!, actor);
        console.log(`Deleted team "${t.name}"; follow-ups it owned have no owner now.`);
        return 0;
      });
    default:
      console.error(`unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}
