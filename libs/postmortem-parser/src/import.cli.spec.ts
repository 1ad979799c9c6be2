import type { ImportResult } from './importer.types';
import { importCli, type ImportCliIo } from './import.cli';

const FILES: Record<string, string> = {
  'good.md': '# Disk full on the build host\n\n## Timeline (UTC)\n\n**2024-01-09**\n\n- 03:10 Disk reaches 100%\n- 03:40 Old artefacts deleted\n\n## Action items\n\n- Alert at 90% disk (OPS-9)\n',
  'empty.md': '\n\n',
};

function fakeIo(save?: ImportCliIo['saveDraft']) {
  const out: string[] = [];
  const err: string[] = [];
  const io: ImportCliIo = {
    readFile: async (path) => {
      if (!(path in FILES)) throw new Error(`ENOENT: no such file, open '${path}'`);
      return Buffer.from(FILES[path], 'utf8');
    },
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    saveDraft: save,
  };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

describe('importCli', () => {
  it('prints a dry-run report and exits 0', async () => {
    const { io, out } = fakeIo();
    expect(await importCli(['good.md', '--dry-run'], io)).toBe(0);
    expect(out()).toContain('title:        Disk full on the build host');
    expect(out()).toContain('2 timeline events, 0 causal factors, 1 action items');
    expect(out()).toContain('2024-01-09T03:10:00Z');
    expect(out()).toContain('open        Alert at 90% disk [OPS-9]');
  });

  it('prints the result as JSON when asked', async () => {
    const { io, out } = fakeIo();
    expect(await importCli(['--dry-run', '--json', '--organization=Acme', 'good.md'], io)).toBe(0);
    const parsed = JSON.parse(out()) as { file: string } & ImportResult;
    expect(parsed.file).toBe('good.md');
    expect(parsed.draft.organization).toBe('Acme');
    expect(parsed.report.problems).toEqual([]);
  });

  it('passes the options on to the parser', async () => {
    const { io, out } = fakeIo();
    expect(await importCli(['good.md', '--dry-run', '--json', '--jira', 'https://jira.example.com'], io)).toBe(0);
    const parsed = JSON.parse(out()) as ImportResult;
    expect(parsed.draft.actionables[0].references[0].url).toBe('https://jira.example.com/browse/OPS-9');
  });

  it('hands each draft to saveDraft when not a dry run', async () => {
    const saved: string[] = [];
    const { io, out } = fakeIo(async (result, path) => {
      saved.push(`${path}:${result.draft.slug}`);
      return 'created';
    });
    expect(await importCli(['good.md'], io)).toBe(0);
    expect(saved).toEqual(['good.md:disk-full-on-the-build-host-2024']);
    expect(out()).toContain('good.md: created (disk-full-on-the-build-host-2024)');
  });

  it('exits 1 and names the code when a file is refused, after importing the others', async () => {
    const { io, out, err } = fakeIo();
    expect(await importCli(['empty.md', 'good.md', 'missing.md', '--dry-run'], io)).toBe(1);
    expect(err()).toContain('empty.md: EMPTY_DOCUMENT: The document contains only white space.');
    expect(err()).toContain("missing.md: ENOENT: no such file, open 'missing.md'");
    expect(out()).toContain('Disk full on the build host');
  });

  it('prints the usage for --help', async () => {
    const { io, out } = fakeIo();
    expect(await importCli(['--help'], io)).toBe(0);
    expect(out()).toContain('usage: import <file>... [--format markdown|wikitext|text] [--dry-run]');
  });

  it.each([
    [[], 'no file given'],
    [['good.md', '--format', 'docx'], '--format expects one of markdown, wikitext, text'],
    [['good.md', '--colour'], 'unknown option --colour'],
    [['good.md'], 'run with --dry-run'],
  ])('exits 2 with usage for %j', async (argv, message) => {
    const { io, err } = fakeIo();
    expect(await importCli(argv, io)).toBe(2);
    expect(err()).toContain(message);
    expect(err()).toContain('usage: import <file>...');
  });
});
