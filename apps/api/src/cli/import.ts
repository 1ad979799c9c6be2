import fs from 'node:fs/promises';
import { importCli } from '@hindsight/postmortem-parser';
import { DraftsService } from '@hindsight/drafts';
import { loadConfig } from '../config/app-config';
import { cliActor } from './cli-actor';
import { withDatabase } from './cli-database';

/**
 * `npm run import -- <file>… [--format markdown|wikitext|text] [--dry-run]`: turns postmortem
 * documents into draft incidents (review them, then publish). `--dry-run` only prints what
 * would be imported and needs no database.
 */
export async function main(argv: string[]): Promise<number> {
  const io = {
    readFile: (file: string) => fs.readFile(file),
    stdout: (text: string) => process.stdout.write(text),
    stderr: (text: string) => process.stderr.write(text),
  };
  // An organization the document does not name stays empty; the report flags it.
  const args = argv;
  if (argv.includes('--dry-run') || argv.includes('--help') || argv.length === 0) return importCli(args, io);
  const config = loadConfig();
  return withDatabase(async (prisma) => {
    const imports = new DraftsService(prisma, config.imports);
    // The same options as a GraphQL import, so the same document gives the same draft.
    return importCli(args, {
      ...io,
      baseOptions: await imports.parseOptions(),
      async saveDraft(result, file) {
        const outcome = await imports.saveDraft(result, { sourceUrl: result.draft.source.url, document: await fs.readFile(file, 'utf8'), actor: cliActor() });
        return outcome.created ? 'created draft' : 'updated draft';
      },
    });
  });
}
