import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '@hindsight/db';
import { currentSdl, SDL_FILE } from '../apps/api/src/cli/schema';

describe('committed GraphQL schema', () => {
  it('matches the schema the code produces (run `npm run schema` after changing the API)', async () => {
    const committed = fs.readFileSync(path.join(projectRoot(), SDL_FILE), 'utf8');
    const generated = await currentSdl();
    expect(generated).toContain('type Query');
    expect(generated).toEqual(committed);
  });
});
