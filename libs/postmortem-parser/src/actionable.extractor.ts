import type { ActionableDocument, ActionableStatus, ExternalReferenceDocument } from '@hindsight/domain';
import { findFirstDate, isoDate } from './calendar-date.parser';
import type { DocumentBlock, ListItemBlock, TableBlock } from './document-block.types';
import type { DocumentFormat, TrackerBases } from './importer.types';
import { markdownToPlain, toMarkdownInline } from './inline.converter';
import { extractReferences } from './reference.extractor';
import type { DocumentSection } from './section.builder';
import { slugify, KeyAllocator } from './slug.util';

export interface ActionableEnvironment {
  format: DocumentFormat;
  trackers: TrackerBases;
  year: number | null;
  dayFirst: boolean;
  used: Set<number>;
}

export interface ActionableExtraction {
  actionables: ActionableDocument[];
  /** One per action item, in the same order. */
  decisions: ActionableDecision[];
  prose: Map<DocumentSection, DocumentBlock[]>;
  /** Owners that came from subsection headings (teams or components). */
  headingOwners: string[];
}

const DONE_WORDS = 'done|fixed|completed?|resolved|closed|merged|shipped|erledigt|fertig|behoben|fait|terminé|résolu|hecho|completad[oa]|resuelto|xong|đã xong|hoàn thành';
const WONT_WORDS = "wontfix|won'?t ?(?:do|fix)|not worth it|declined|rejected|cancell?ed|not doing|abgelehnt|verworfen|abandonné|rejeté|descartad[oa]|rechazad[oa]|bỏ qua|không làm";
const PROGRESS_WORDS = 'in progress|in-progress|wip|ongoing|doing|started|in arbeit|en cours|en curso|en progreso|đang làm|đang thực hiện';
const OPEN_WORDS = 'todo|to do|open|planned|not started|backlog|offen|geplant|à faire|prévu|pendiente|planificad[oa]|chưa làm';

// No leading `\s*`: scanning a long run of spaces with it is quadratic. Spaces are collapsed after.
const bracketed = (words: string) => new RegExp(`(?:\\*\\*|__)?[[(](?:${words})[\\])](?:\\*\\*|__)?:?`, 'giu');
const MARKERS: [RegExp, ActionableStatus][] = [
  [bracketed(DONE_WORDS), 'done'],
  [bracketed(WONT_WORDS), 'wont_do'],
  [bracketed(PROGRESS_WORDS), 'in_progress'],
  [bracketed(OPEN_WORDS), 'open'],
  [/^\s*(?:\*\*|__)?DONE(?:\*\*|__)?(?!\w)[:\s–-]*/gu, 'done'],
  [/^\s*(?:\*\*|__)?(?:WONTFIX|WONT ?DO)(?:\*\*|__)?(?!\w)[:\s–-]*/gu, 'wont_do'],
  [/^\s*(?:\*\*|__)?(?:WIP|IN PROGRESS)(?:\*\*|__)?(?!\w)[:\s–-]*/gu, 'in_progress'],
  [/^\s*(?:\*\*|__)?TODO(?:\*\*|__)?(?!\w)[:\s–-]*/gu, 'open'],
  // A bold status word or a status label leading the item: "**Done**: …", "Done: …", "'''Todo''' …".
  [/^\s*(?:\*\*|__)(?:done|fixed|completed)(?:\*\*|__)\s*:?\s*|^\s*(?:done|fixed|completed)\s*:\s*/giu, 'done'],
  [/^\s*(?:\*\*|__)(?:todo|to do|open|planned)(?:\*\*|__)\s*:?\s*|^\s*(?:todo|to do)\s*:\s*/giu, 'open'],
  [/^\s*(?:\*\*|__)(?:doing|in progress|wip|ongoing)(?:\*\*|__)\s*:?\s*|^\s*(?:doing|in progress|wip|ongoing)\s*:\s*/giu, 'in_progress'],
  [/^\s*(?:\*\*|__)(?:won'?t do|wontfix|rejected|declined)(?:\*\*|__)\s*:?\s*|^\s*(?:won'?t do|wontfix|rejected)\s*:\s*/giu, 'wont_do'],
  [/✅/gu, 'done'],
  [/[❌🚫]/gu, 'wont_do'],
  [/[🚧⏳]/gu, 'in_progress'],
];
const WONT_PHRASES =
  /(?<![\p{L}])(?:not (?:\p{L}+ ){0,3}worth it|won'?t (?:do|fix)|wontfix|will not (?:do|fix|be done)|nicht lohnenswert|lohnt sich nicht|ne vaut pas la peine|no vale la pena|không đáng)(?![\p{L}])/iu;
const STATUS_CELL: [RegExp, ActionableStatus][] = [
  [new RegExp(`^(?:${WONT_WORDS}|no)$`, 'iu'), 'wont_do'],
  [new RegExp(`^(?:${DONE_WORDS}|yes|✅|✓|✔)$`, 'iu'), 'done'],
  [new RegExp(`^(?:${PROGRESS_WORDS})$`, 'iu'), 'in_progress'],
  [new RegExp(`^(?:${OPEN_WORDS}|new)$`, 'iu'), 'open'],
];
const STATUS_HEADING: [RegExp, ActionableStatus][] = [
  [/^(?:done|completed|finished|closed|erledigt|terminé|hecho|đã xong|hoàn thành)$/iu, 'done'],
  [/^(?:in progress|ongoing|wip|in arbeit|en cours|en curso|đang làm)$/iu, 'in_progress'],
  [/^(?:won'?t do|wontfix|declined|rejected|not doing|abgelehnt|rejeté|rechazado)$/iu, 'wont_do'],
  [/^(?:open|todo|to do|planned|pending|offen|à faire|pendiente|chưa làm)$/iu, 'open'],
];
const OWNER =
  /(?:[([] ?)?(?<![\p{L}])(?:owners?|assignee|assigned to|responsible|verantwortlich|zuständig|responsable|người phụ trách|phụ trách) ?[:=]\s*([^,;)\]\n]{1,80}?)\s*(?:[)\]]|(?=[,;]|$))/iu;
const MENTION = /(?:^|\s)@([\p{L}\d][\p{L}\d._-]*)/u;
const DUE = /(?<![\p{L}])(?:due|by|until|deadline|bis|avant le|antes del?|hạn)(?::\s*|\s+(?::\s*)?)(\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4})/iu;
// A bullet that starts like these explains the bullet above it rather than adding a new item.
const ELABORATION =
  /^(?:this|these|that|those|it|its|they|note|nb|n\.b\.|see|e\.g\.|i\.e\.|which|or|dies|diese|das wird|hinweis|cela|ceci|remarque|esto|esta|nota|lưu ý|ghi chú)(?![\p{L}])|^(?:in|on|at|via|maybe|perhaps)\s.*\?\s*$/iu;
/** Verbs an action item starts with ("Add an alert", "Review the retries"); the prose reader uses them too. */
export const IMPERATIVE_VERBS: readonly string[] = [
  'add', 'adjust', 'alert', 'allow', 'audit', 'automate', 'avoid', 'build', 'change', 'check',
  'clean', 'configure', 'consider', 'create', 'cut', 'define', 'deploy', 'disable', 'document',
  'enable', 'ensure', 'evaluate', 'fix', 'implement', 'improve', 'increase', 'introduce',
  'investigate', 'limit', 'look', 'lower', 'make', 'measure', 'migrate', 'monitor', 'move',
  'page', 'prevent', 'raise', 'reduce', 'refactor', 'remove', 'replace', 'review', 'rewrite',
  'run', 'separate', 'set', 'setup', 'split', 'stop', 'switch', 'test', 'track', 'update',
  'upgrade', 'use', 'validate', 'write',
];
const IMPERATIVE = new RegExp(`^(?:${IMPERATIVE_VERBS.join('|')})(?![\\p{L}])`, 'iu');

/** A cell or marker that is only a status word ("DONE", "[todo]", "Done.", "✅"). */
function statusWordOf(cell: string): { text: string; status: ActionableStatus | null } {
  const text = markdownToPlain(cell).replace(/[[\]*_.!]/g, '').trim();
  return { text, status: STATUS_CELL.find(([p]) => p.test(text))?.[1] ?? null };
}

// What the wording of an item says about its state when no marker does. English and a few
// unambiguous forms elsewhere; anything else stays open.
const WORDED_STATUS: [RegExp, ActionableStatus][] = [
  [/(?<![\p{L}])(?:was|were|has been|have been|got) (?:\p{L}+ ){0,2}(?:rejected|declined|abandoned|dropped)(?![\p{L}])|(?<![\p{L}])(?:we )?decided (?:not to|against)(?![\p{L}])/iu, 'wont_do'],
  [/\((?:done|fixed|completed|resolved|merged|deployed)(?![\p{L}])[^)]*\)|(?<![\p{L}])(?:has|have) (?:now |already )?been (?:\p{L}+ly )?\p{L}+(?:ed|en|wn|ne|lt|de|ut|et)(?![\p{L}])|^(?:we|i|they|the team) (?:have |has )?(?:now |already |then )?\p{L}+ed(?![\p{L}])|(?<![\p{L}])(?:is|are) now (?:\p{L}+ed|in place|live|enabled|disabled)(?![\p{L}])|已(?:经)?(?:完成|修复|解决|处理|上线|部署)|完了しました|対応済み|済み|しました[。.]?$/iu, 'done'],
  [/(?<![\p{L}])(?:we|i|they|the team) (?:are|am|is) (?:currently |now |actively |also )?\p{L}+ing(?![\p{L}])|(?<![\p{L}])(?:is|are) (?:being|under way|underway)(?![\p{L}])|(?<![\p{L}])work (?:is|has) (?:started|begun|under way)(?![\p{L}])|(?<![\p{L}])(?:is|are) (?:a |still |currently )?(?:work in progress|in progress|ongoing|under way|underway)(?![\p{L}])|正在|進行中|対応中/iu, 'in_progress'],
];

/** The state an item's own sentence states: "has been disabled", "we are improving", "(done in …)", "was rejected". */
export function statusFromWording(text: string): ActionableStatus | null {
  const plain = markdownToPlain(text).replace(/\s+/g, ' ').trim();
  // Only the item's first sentence speaks for it; later ones tell background.
  const first = /^(.+?[.!?。])(?:\s|$)/u.exec(plain)?.[1] ?? plain;
  for (const [pattern, status] of WORDED_STATUS) if (pattern.test(first)) return status;
  return null;
}

const STATUS_LEAD = /^(?:\[[ xX]\]|(?:TODO|DONE|WIP|WONTFIX|DOING)\b|(?:done|fixed|completed|todo|to do|doing|in progress|wip|ongoing|won'?t do|wontfix|rejected)\s*:)/iu;

function statusOf(text: string, checked: boolean | null): { status: ActionableStatus | null; text: string; rule: StatusRule | null } {
  let status: ActionableStatus | null = checked === true ? 'done' : checked === false ? 'open' : null;
  let rule: StatusRule | null = status ? 'checkbox' : null;
  let rest = text;
  for (const [pattern, markerStatus] of MARKERS) {
    pattern.lastIndex = 0;
    if (pattern.test(rest)) {
      if (!status) rule = 'marker';
      status ??= markerStatus;
      pattern.lastIndex = 0;
      rest = rest.replace(pattern, ' ');
    }
  }
  rest = rest.replace(/\s{2,}/g, ' ').trim();
  const struck = /^~~(.+)~~$/.exec(rest);
  if (struck) {
    if (!status) rule = 'struck through';
    status ??= 'done';
    rest = struck[1];
  }
  if (!status && WONT_PHRASES.test(rest)) {
    status = 'wont_do';
    rule = 'wording';
  }
  if (!status) {
    status = statusFromWording(rest);
    if (status) rule = 'wording';
  }
  return { status, text: rest, rule };
}

/** Where an item's status came from; the report gives each with a confidence. */
export type StatusRule = 'checkbox' | 'marker' | 'struck through' | 'status column' | 'status heading' | 'status-led line above' | 'wording' | 'prose' | 'none stated';
export const STATUS_RULE_CONFIDENCE: Record<StatusRule, number> = {
  checkbox: 1, marker: 1, 'status column': 1, 'status heading': 0.95, 'struck through': 0.9, 'status-led line above': 0.8, wording: 0.7, prose: 0.5, 'none stated': 0.6,
};

/** How one action item was read, for the import report. */
export interface ActionableDecision {
  line: number | null;
  statusRule: StatusRule;
}

function dueDateOf(text: string, env: ActionableEnvironment): string | null {
  const m = DUE.exec(text);
  if (!m) return null;
  const found = findFirstDate(m[1], { dayFirst: env.dayFirst });
  if (!found) return null;
  const year = found.date.year ?? env.year;
  return year === null ? null : isoDate({ ...found.date, year });
}

function lastSegment(url: string): string {
  const clean = url.replace(/[?].*$/, '');
  const parts = clean.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? clean;
}

function trimPunctuation(text: string): string {
  const junk = new Set([...' \t:;,–—-']);
  let start = 0;
  let end = text.length;
  while (start < end && junk.has(text[start])) start++;
  while (end > start && junk.has(text[end - 1])) end--;
  return text.slice(start, end);
}

/** A short title: the item's words without status markers, owners, trailing links or bare task ids. */
function titleOf(fullText: string, references: ExternalReferenceDocument[]): string {
  // A title is at most a sentence; looking at the first 600 characters keeps every clean-up
  // below cheap however long the item is.
  let t = fullText.slice(0, 600)
    .replace(OWNER, ' ')
    .replace(/\s*[–—-]?\s*@[\p{L}\d][\p{L}\d._-]*\s*$/u, '')
    .replace(/\s*\((?:[\w.-]+\/[\w.-]+)?#\d+\)|\s*\((?:T\d{3,}|[A-Z][A-Z0-9]+-\d+)\)/g, '')
    .replace(/!\[[^\][]*\]\([^()]*\)/g, ' ')
    .replace(/\[([^\][]*)\]\((https?:\/\/[^()]+)\)/g, (_, label: string) => label)
    .replace(/\{(T\d+)\}/g, '$1');
  // Links at the end (or after a colon) are references, already kept; links inside the sentence
  // are shortened to their last path segment so the sentence still reads.
  t = t.replace(/(?:[:,]?\s*(?:see|in|at|via)?\s*)?\(?<?https?:\/\/[^\s)>]+>?\)?[.,;:]?\s*$/i, '');
  for (let i = 0; i < 3; i++) t = t.replace(/[:,]?\s*(?:see\s+)?<?https?:\/\/[^\s)>]+>?\s*$/i, '');
  t = t.replace(/<?(https?:\/\/[^\s)>]+)>?/g, (_, url: string) => lastSegment(url));
  // A status with its reason after a dash belongs to the status, not the title.
  t = t.replace(/\s+[—–-]\s+(?:wontfix|won'?t (?:do|fix)|done|not worth it|declined|erledigt|fait|hecho)(?![\p{L}]).*$/iu, '');
  // Task ids at the end are references, already kept: "...failures: T134551" reads as "...failures".
  t = t.replace(/(?:[\s:,;–—-]*(?:see\s+)?\(?(?:T\d{3,}|[A-Z][A-Z0-9]+-\d+|gerrit:\s?\d+|(?:[\w.-]+\/[\w.-]+)?#\d+)\)?)+\s*$/i, (tail) => (tail.trim() === t.trim() ? tail : ''));
  t = trimPunctuation(markdownToPlain(t).replace(/\s{2,}/g, ' ')).trim();
  if (!t || /^(?:T\d+[\s,]*)+$/.test(t)) return references.map((r) => r.ref).join(', ') || t || 'Untitled action';
  if (t.length > 160) {
    const sentence = /^(.{20,160}?[.!?])\s/.exec(t);
    t = sentence ? sentence[1] : `${t.slice(0, 157).replace(/\s+\S*$/, '')}…`;
  }
  return t;
}

/** Turns what was read into action items: references, a short title, a key from the title. */
function finishActionables(pending: readonly PendingActionable[], trackers: TrackerBases): ActionableDocument[] {
  const keys = new KeyAllocator();
  return pending.map((p): ActionableDocument => {
    const references = extractReferences([p.text, ...p.details, p.ticket].join('\n'), trackers);
    const title = titleOf(p.text, references);
    const description = [p.text, ...p.details].join('\n').trim();
    return {
      key: keys.allocate(slugify(title, { maxWords: 6, maxLength: 48 }), 'action'),
      title,
      description,
      owner: p.owner,
      status: p.status ?? 'open',
      dueDate: p.dueDate,
      references,
      addresses: [],
    };
  });
}

/** Action items read from sentences (see `prose.reader`): each mention after the first joins the description. */
export function actionablesFromProse(
  items: readonly { text: string; status: ActionableStatus; owner: string | null; mentions: readonly string[]; links?: readonly string[] }[],
  trackers: TrackerBases,
): ActionableDocument[] {
  return finishActionables(
    items.map((i) => ({ text: i.text, details: [...i.mentions], status: i.status, owner: i.owner, dueDate: null, ticket: (i.links ?? []).join('\n') })),
    trackers,
  );
}

interface PendingActionable {
  line?: number;
  rule?: StatusRule | null;
  text: string;
  details: string[];
  status: ActionableStatus | null;
  owner: string | null;
  dueDate: string | null;
  /** A table's ticket column: searched for references like the text. */
  ticket: string;
}

/**
 * A table is a table of action items wherever it stands when its header names the work (action,
 * item, task, follow-up) and who owns it or its state, in any of the importer's languages.
 */
export function isActionTable(block: DocumentBlock, format: DocumentFormat): boolean {
  if (block.type !== 'table' || !block.header) return false;
  const header = block.header.cells.map((c) => markdownToPlain(toMarkdownInline(c, format)).toLowerCase());
  const work = header.some((h) => /action|task|follow|remediation|todo|maßnahme|aufgabe|tâche|acción|tarea|ação|tarefa|việc|hành động|対策|措施|任务|조치/u.test(h));
  const owner = header.some((h) => /owner|assignee|responsible|verantwortlich|responsable|responsável|phụ trách|担当|负责|담당/u.test(h));
  const status = header.some((h) => /status|state|zustand|statut|estado|trạng thái|状态|状態|상태|done/u.test(h));
  return work && (owner || status);
}

/** True when a section's list reads like action items: mostly imperatives or tracker references. */
export function looksLikeActionList(section: DocumentSection, format: DocumentFormat): boolean {
  const items = section.blocks.filter((b): b is ListItemBlock => b.type === 'item');
  if (items.length === 0) return false;
  const top = items.filter((item, i) => i === 0 || !ELABORATION.test(markdownToPlain(toMarkdownInline(item.text, format))));
  const actionLike = top.filter((item) => {
    const plain = markdownToPlain(toMarkdownInline(item.text, format));
    return IMPERATIVE.test(plain) || extractReferences(plain).some((r) => r.kind !== 'url');
  });
  return actionLike.length / top.length >= 0.5;
}

/**
 * Reads action items: bullets, checkboxes, numbered lists, tables with owner and status columns,
 * and plain-text lines. Bullets that only explain the bullet above (nested deeper, or starting
 * "This ...", "Note: ...") join its description, and their references and "not worth it" join it too.
 */
export function extractActionables(sections: readonly DocumentSection[], env: ActionableEnvironment): ActionableExtraction {
  const pending: PendingActionable[] = [];
  const prose = new Map<DocumentSection, DocumentBlock[]>();
  const headingOwners: string[] = [];
  const md = (text: string) => toMarkdownInline(text, env.format);
  const use = (...lines: number[]) => lines.forEach((l) => env.used.add(l));
  const keepProse = (section: DocumentSection, block: DocumentBlock) => {
    const list = prose.get(section) ?? [];
    list.push(block);
    prose.set(section, list);
  };

  for (const section of sections) {
    let owner: string | null = null;
    let headingStatus: ActionableStatus | null = null;
    const nested = section.parent !== null && sections.includes(section.parent);
    if (section.heading && nested) {
      const title = markdownToPlain(md(section.title));
      headingStatus = STATUS_HEADING.find(([p]) => p.test(title))?.[1] ?? null;
      if (!headingStatus && title) {
        owner = title;
        if (!headingOwners.includes(title)) headingOwners.push(title);
      }
    }
    let parent: { item: PendingActionable; indent: number } | null = null;
    let leadStatus: ActionableStatus | null = null;
    // Only a section that is surely about action items, and has no list or table, is read paragraph by paragraph.
    const paragraphItems =
      env.format !== 'text' &&
      section.confidence >= 0.5 &&
      section.blocks.every((b) => b.type !== 'item' && b.type !== 'table') &&
      section.blocks.some((b) => b.type === 'paragraph');

    const startItem = (raw: string, checked: boolean | null, line: number[]) => {
      const markdown = md(raw);
      const { status, text, rule } = statusOf(markdown, checked);
      const explicitOwner = OWNER.exec(text)?.[1]?.trim() ?? MENTION.exec(text)?.[1] ?? null;
      const item: PendingActionable = {
        text,
        details: [],
        status: status ?? headingStatus,
        line: line[0],
        rule: rule ?? (headingStatus ? 'status heading' : null),
        owner: explicitOwner ?? owner,
        dueDate: dueDateOf(text, env),
        ticket: '',
      };
      pending.push(item);
      use(...line);
      return item;
    };

    const readItem = (block: ListItemBlock) => {
      const lines = [block.line, ...block.continuation.map((l) => l.line)];
      const raw = [block.text, ...block.continuation.map((l) => l.text)].join(' ');
      const plain = markdownToPlain(md(block.text));
      // A deeper bullet that reads as work of its own (a checkbox, a status marker, "(done …)", an
      // imperative) is its own item, listed after its parent; other deeper bullets explain the
      // parent, and "not worth it" there judges the parent's work.
      const stated = block.checked === null ? statusOf(md(raw), null) : null;
      const ownWork =
        parent !== null &&
        block.indent > parent.indent &&
        !ELABORATION.test(plain) &&
        (block.checked !== null || IMPERATIVE.test(plain) || (stated?.status != null && stated.status !== 'wont_do'));
      if (ownWork) {
        startItem(raw, block.checked, lines);
        return;
      }
      if (parent && (block.indent > parent.indent || ELABORATION.test(plain))) {
        const { status, text, rule } = statusOf(md(raw), block.checked);
        parent.item.details.push(text);
        if (!parent.item.status && status && status !== 'open') {
          parent.item.status = status;
          parent.item.rule = rule;
        }
        use(...lines);
        return;
      }
      const item = startItem(raw, block.checked, lines);
      if (!item.status && leadStatus) {
        item.status = leadStatus;
        item.rule = 'status-led line above';
      }
      parent = { item, indent: block.indent };
    };

    const readTable = (block: TableBlock) => {
      const header = block.header?.cells.map((c) => markdownToPlain(md(c)).toLowerCase()) ?? [];
      const find = (pattern: RegExp) => header.findIndex((h) => pattern.test(h));
      const ownerColumn = find(/owner|assignee|who|team|responsible|verantwortlich|zuständig|responsable|phụ trách/u);
      let statusColumn = find(/status|state|zustand|statut|estado|trạng thái|状态|状態|상태/u);
      if (statusColumn < 0) {
        // A column whose cells are statuses is the status column, whatever its header says (a "Ticket" column holding Done and Todo).
        statusColumn = header.findIndex((_, i) => {
          const cells = block.rows.map((r) => statusWordOf(r.cells[i] ?? '')).filter((c) => c.text !== '');
          return cells.length > 0 && cells.filter((c) => c.status !== null).length / cells.length >= 0.6;
        });
      }
      const refColumn = find(/ticket|issue|link|ref|jira|phab|task id|bug|pr\b/u);
      const dueColumn = find(/due|deadline|fällig|échéance|plazo|hạn/u);
      let titleColumn = find(/action|item|task|title|description|what|maßnahme|aufgabe|tâche|acción|tarea|việc|hành động|nội dung/u);
      if (titleColumn < 0 || [ownerColumn, statusColumn, refColumn, dueColumn].includes(titleColumn)) {
        titleColumn = header.findIndex((_, i) => ![ownerColumn, statusColumn, refColumn, dueColumn].includes(i));
        if (titleColumn < 0) titleColumn = 0;
      }
      use(...block.markupLines);
      if (block.header) use(block.header.line);
      for (const row of block.rows) {
        const cell = (i: number) => (i >= 0 ? (row.cells[i] ?? '').trim() : '');
        const title = cell(titleColumn);
        if (!title) continue;
        const columnStatus = statusWordOf(md(cell(statusColumn))).status;
        const item = startItem(title, null, [row.line]);
        if (columnStatus) {
          item.status = columnStatus;
          item.rule = 'status column';
        }
        const ownerText = markdownToPlain(md(cell(ownerColumn))).replace(/^@/, '');
        if (ownerText && ownerText !== '-' && ownerText !== '—') item.owner = ownerText;
        item.ticket = md(cell(refColumn));
        const due = cell(dueColumn);
        if (due) {
          const found = findFirstDate(due, { dayFirst: env.dayFirst });
          const year = found?.date.year ?? env.year;
          if (found && year !== null) item.dueDate = isoDate({ ...found.date, year });
        }
      }
    };

    for (const block of section.blocks) {
      if (block.type === 'item') readItem(block);
      else if (block.type === 'table') {
        readTable(block);
        parent = null;
      } else if (block.type === 'paragraph' && paragraphItems) {
        leadStatus = null;
        // A section of action items written as paragraphs: each paragraph is one item.
        parent = null;
        startItem(block.lines.map((l) => l.text.trim()).join(' '), null, block.lines.map((l) => l.line));
      } else if (block.type === 'paragraph') {
        parent = null;
        leadStatus = null;
        let wrapped: PendingActionable | null = null;
        const leftover = block.lines.filter(({ line, text }) => {
          const plain = markdownToPlain(md(text));
          const statusLed = STATUS_LEAD.test(plain.trim()) || /^~~/.test(text.trim());
          if (statusLed || (env.format === 'text' && plain.length <= 300)) {
            const checkbox = /^\s*\[( |x|X)\]\s*/.exec(text);
            const led = startItem(checkbox ? text.slice(checkbox[0].length) : text, checkbox ? checkbox[1] !== ' ' : null, [line]);
            // "Done: ship a patch release with these limits:" then a list: the list is that work, in that state.
            if (/[:：]\s*$/.test(plain)) leadStatus = led.status;
            wrapped = env.format === 'text' ? null : led;
            return false;
          }
          if (wrapped) {
            // The next lines of the same paragraph go on with the status-led item.
            wrapped.details.push(md(text).trim());
            use(line);
            return false;
          }
          return true;
        });
        if (leftover.length > 0) keepProse(section, { type: 'paragraph', lines: leftover });
      } else if (block.type === 'code') keepProse(section, block);
      else if (block.type === 'rule') use(block.line);
    }
  }

  const actionables = finishActionables(pending, env.trackers);
  const decisions = pending.map((p): ActionableDecision => ({ line: p.line ?? null, statusRule: p.rule ?? 'none stated' }));
  return { actionables, decisions, prose, headingOwners };
}
