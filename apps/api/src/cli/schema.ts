import fs from 'node:fs';
import path from 'node:path';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { projectRoot } from '@hindsight/db';
import { createApp } from '../bootstrap';
import { loadConfig } from '../config/app-config';

export const SDL_FILE = 'schema.gql';

const HEADER = '# The GraphQL schema of Hindsight, generated from the code by `npm run schema`.\n# Committed so API changes show up in review; a test fails when code and file differ.\n\n';

/** Builds the app (no database connection is opened) and prints its schema. */
export async function currentSdl(): Promise<string> {
  const config = loadConfig({ DATABASE_URL: 'postgresql://127.0.0.1:1/schema-only', SEED_ON_START: 'false' });
  const app = await createApp(config, config.databaseUrl!, { logger: false });
  try {
    await app.init();
    return HEADER + printSchema(lexicographicSortSchema(app.get(GraphQLSchemaHost).schema)) + '\n';
  } finally {
    await app.close();
  }
}

/** `npm run schema` writes schema.gql; `npm run schema -- --check` fails when it is stale. */
export async function main(argv: string[]): Promise<number> {
  const file = path.join(projectRoot(), SDL_FILE);
  const sdl = await currentSdl();
  if (argv.includes('--check')) {
    const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (committed !== sdl) {
      console.error(`${SDL_FILE} is out of date: run npm run schema and commit the result.`);
      return 1;
    }
    console.log(`${SDL_FILE} is up to date.`);
    return 0;
  }
  fs.writeFileSync(file, sdl);
  console.log(`wrote ${SDL_FILE}`);
  return 0;
}
