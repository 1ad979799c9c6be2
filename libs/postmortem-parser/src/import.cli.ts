import { DOCUMENT_FORMATS, type DocumentFormat, type ImportResult, type ParsePostmortemOptions } from './importer.types';
import { ImportError } from './import.error';
import { formatImportReport } from './import-report.formatter';
import { parsePostmortem } from './postmortem.parser';

/** What the command needs from the outside world; the caller supplies files, output and storage. */
export interface ImportCliIo {
  readFile(path: string): Promise<Buffer | string>;
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Stores a draft; absent in a dry run. Returns what happened ("created", "unchanged", ...) for
   * the summary line.
   */
  saveDraft?(result: ImportResult, path: string): Promise<string>;
  /** Options the store parses with (trackers, known patterns, organization); the command's flags win over them. */
  baseOptions?: ParsePostmortemOptions;
}

const USAGE = `usage: import <file>... [--format markdown|wikitext|text] [--dry-run] [--json]
              [--source-url URL] [--default-year YYYY] [--time-zone ZONE] [--organization NAME]
              [--phabricator URL] [--jira URL] [--github URL]
`;

interface ParsedArgs {
  help: boolean;
  files: string[];
  dryRun: boolean;
  json: boolean;
  options: ParsePostmortemOptions;
}

function parseArgs(argv: readonly string[]): ParsedArgs | string {
  const args: ParsedArgs = { help: false, files: [], dryRun: false, json: false, options: {} };
  const trackers: NonNullable<ParsePostmortemOptions['trackers']> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | null => inline ?? (i + 1 < argv.length ? argv[++i] : null);
    switch (flag) {
      case '--help':
      case '-h':
        args.help = true;
        break;
      case '--dry-run':
        args.dryRun = true;
        break;
      case '--json':
        args.json = true;
        break;
      case '--format': {
        const v = value();
        if (!v || !DOCUMENT_FORMATS.includes(v as DocumentFormat)) return `--format expects one of ${DOCUMENT_FORMATS.join(', ')}`;
        args.options.format = v as DocumentFormat;
        break;
      }
      case '--source-url':
      case '--time-zone':
      case '--organization':
      case '--phabricator':
      case '--jira':
      case '--github': {
        const v = value();
        if (!v) return `${flag} expects a value`;
        if (flag === '--source-url') args.options.sourceUrl = v;
        else if (flag === '--time-zone') args.options.assumeTimeZone = v;
        else if (flag === '--organization') args.options.organization = v;
        else trackers[flag.slice(2) as keyof typeof trackers] = v;
        break;
      }
      case '--default-year': {
        const v = Number(value());
        if (!Number.isInteger(v)) return '--default-year expects a year';
        args.options.defaultYear = v;
        break;
      }
      default:
        if (flag.startsWith('--')) return `unknown option ${flag}`;
        args.files.push(arg);
    }
  }
  if (Object.keys(trackers).length > 0) args.options.trackers = trackers;
  if (args.files.length === 0 && !args.help) return 'no file given';
  return args;
}

/**
 * `import <file>… [--dry-run]`: parses each file and prints its report; without `--dry-run` it
 * hands each draft to `io.saveDraft`. Exit code 0 when every file was imported, 1 when some file
 * was refused, 2 for a usage error.
 */
/** Options the command line set; unset ones leave the base options alone. */
function definedOnly(options: ParsePostmortemOptions): ParsePostmortemOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as ParsePostmortemOptions;
}

export async function importCli(argv: readonly string[], io: ImportCliIo): Promise<number> {
  const parsed = parseArgs(argv);
  if (typeof parsed === 'string') {
    io.stderr(`${parsed}\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (!parsed.dryRun && !io.saveDraft) {
    io.stderr(`nothing to save drafts with here; run with --dry-run to see what would be imported\n${USAGE}`);
    return 2;
  }
  let failed = 0;
  for (const file of parsed.files) {
    try {
      const trackers = { ...io.baseOptions?.trackers, ...parsed.options.trackers };
      const result = parsePostmortem(await io.readFile(file), { ...io.baseOptions, ...definedOnly(parsed.options), trackers });
      if (parsed.json) io.stdout(`${JSON.stringify({ file, ...result }, null, 2)}\n`);
      else io.stdout(formatImportReport(result, { source: file }));
      if (!parsed.dryRun && io.saveDraft) {
        const outcome = await io.saveDraft(result, file);
        io.stdout(`${file}: ${outcome} (${result.draft.slug})\n`);
      }
    } catch (error) {
      failed++;
      if (error instanceof ImportError) io.stderr(`${file}: ${error.code}: ${error.message}\n`);
      else io.stderr(`${file}: ${(error as Error).message}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}
