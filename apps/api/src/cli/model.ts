import { modelCli } from '@hindsight/models';

/**
 * `npm run model -- <incident-slug | spec.json> [--scenario key] [--set name=value]… [--svg file]`:
 * runs a model in the terminal, prints its figures and checks, and can write the charts.
 * Needs no database: specs are read from seeds/models/.
 */
export function main(argv: string[]): Promise<number> {
  return modelCli(argv);
}
