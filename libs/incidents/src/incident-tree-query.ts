/**
 * The hot read paths in one statement each: an incident (or a page of them) with the nested
 * collections a query selected, as JSON aggregated by Postgres, and a page of actionables with
 * theirs (incidents.service.ts builds a page's statement around the select lists here).
 * Hand-written SQL because Prisma sends one or two statements per relation; these are sent as
 * named prepared statements (parsed and planned once per connection), one name per combination
 * of nested collections and column groups.
 */

/** What to load with each incident. Children that are not asked for cost nothing. */
export interface IncidentInclude {
  narrative?: boolean;
  patterns?: boolean;
  timeline?: boolean;
  factors?: boolean;
  links?: boolean;
  actionables?: boolean;
  references?: boolean;
  addresses?: boolean;
  /** The actionables' columns to send beyond the ones always sent; all of them when absent. */
  actionableColumns?: readonly ActionableColumnGroup[];
  /** The patterns' columns to send beyond the ones always sent; all of them when absent. */
  patternColumns?: readonly PatternColumnGroup[];
}

/** What to load with each actionable of a board page. */
export interface ActionableInclude {
  references?: boolean;
  addresses?: boolean;
  incident?: boolean;
  /** The actionables' columns to send beyond the ones always sent; all of them when absent. */
  columns?: readonly ActionableColumnGroup[];
}

/**
 * The columns of an actionable or a pattern a statement may leave out, in groups. A list that
 * shows each incident's follow-ups by key and status and its patterns by key reads a small part
 * of their text: with every column, its statement sent 2.5 times the JSON it does now, most of
 * it never read (docs/benchmarks.md, "Only the columns a query reads"). Always sent: an
 * actionable's id, key, position, status and version; a pattern's id, key and name. Which groups
 * a GraphQL operation needs is the API's business (apps/api includes.ts); records built without
 * a group leave its fields undefined.
 */
export const COLUMN_GROUPS = {
  actionable: {
    words: ['title', 'description', 'owner'],
    followUp: ['dueDate', 'priority', 'closedAt', 'closedBy', 'wontDoReason'],
    stamps: ['createdAt', 'updatedAt'],
  },
  pattern: { description: ['description'] },
} as const;
export type ColumnGroup<K extends keyof typeof COLUMN_GROUPS> = keyof (typeof COLUMN_GROUPS)[K] & string;
export type ActionableColumnGroup = ColumnGroup<'actionable'>;
export type PatternColumnGroup = ColumnGroup<'pattern'>;

/** A kind's groups, in a fixed order. */
export function columnGroups<K extends keyof typeof COLUMN_GROUPS>(kind: K): readonly ColumnGroup<K>[] {
  return Object.keys(COLUMN_GROUPS[kind]) as ColumnGroup<K>[];
}

/** Whether `columns` (as in an include: absent is all) names every group of its kind, so the records are whole. */
export function allColumns<K extends keyof typeof COLUMN_GROUPS>(kind: K, columns: readonly ColumnGroup<K>[] | undefined): boolean {
  return columns === undefined || columnGroups(kind).every((g) => columns.includes(g));
}

/** The groups to send: undefined (all) when they are all named. */
function sent<K extends keyof typeof COLUMN_GROUPS>(kind: K, columns: readonly ColumnGroup<K>[] | undefined): readonly ColumnGroup<K>[] | undefined {
  return allColumns(kind, columns) ? undefined : columns;
}

/**
 * An instant as epoch milliseconds: a JSON number, which the loaders turn into a Date without
 * parsing text. `row_to_json` would write the instant as text in the session's time zone, and a
 * date before that zone's standard time (1883 in New York) then carries an offset with seconds
 * (`-04:56:02`), which JavaScript's Date cannot read. Rounded: the columns hold milliseconds (`Timestamptz(3)`),
 * and before Postgres 14 `extract` answers a double.
 */
const epochMs = (column: string): string => `round(extract(epoch FROM ${column}) * 1000)::bigint`;

/** A calendar date as the epoch milliseconds of its midnight in UTC (the Date the read models carry for one). */
const dayMs = (column: string): string => `((${column} - DATE '1970-01-01')::bigint * 86400000)`;

export const INCIDENT_COLUMNS = `i."id", i."slug", i."status"::text AS "status", i."title", i."organization", i."components", i."summary", i."impact",
  i."sourceTitle", i."sourceUrl", i."sourceLanguage", i."sourceOriginalText", ${epochMs('i."startedAt"')} AS "startedAt", i."startedPrecision"::text AS "startedPrecision",
  ${epochMs('i."detectedAt"')} AS "detectedAt", i."detectedPrecision"::text AS "detectedPrecision", ${epochMs('i."mitigatedAt"')} AS "mitigatedAt", i."mitigatedPrecision"::text AS "mitigatedPrecision",
  ${epochMs('i."resolvedAt"')} AS "resolvedAt", i."resolvedPrecision"::text AS "resolvedPrecision", i."severity", i."nearMiss", i."tags", i."customerImpactMinutes",
  i."customerImpactPrecision"::text AS "customerImpactPrecision", i."version", ${epochMs('i."createdAt"')} AS "createdAt", ${epochMs('i."updatedAt"')} AS "updatedAt"`;

/** Columns sent as epoch milliseconds (`epochMs`, `dayMs`) rather than as they are. */
const NUMERIC_TIMES: Readonly<Record<string, (column: string) => string>> = { dueDate: dayMs, closedAt: epochMs, createdAt: epochMs, updatedAt: epochMs };

/** The JSON pairs (`'name', expression`) of the columns of a kind's groups to send (undefined: all of them). */
function groupPairs<K extends keyof typeof COLUMN_GROUPS>(kind: K, alias: string, columns: readonly ColumnGroup<K>[] | undefined): string {
  const groups = COLUMN_GROUPS[kind] as Readonly<Record<ColumnGroup<K>, readonly string[]>>;
  return columnGroups(kind)
    .filter((g) => columns === undefined || columns.includes(g))
    .flatMap((g) => groups[g])
    .map((c) => `, '${c}', ${(NUMERIC_TIMES[c] ?? ((x: string) => x))(`${alias}."${c}"`)}`)
    .join('');
}

/**
 * An actionable as JSON. Nested under its incident it leaves out `incidentId`, as the children of
 * a tree leave out their parent's id (all but the factors an actionable addresses, see
 * `FACTOR_JSON`): the loaders fill it in from the parent, which saves a UUID per child in every
 * answer. A board's row (`withIncidentId`) carries its own.
 */
const ACTIONABLE_JSON = (alias: string, columns: readonly ActionableColumnGroup[] | undefined, extra: string[] = [], withIncidentId = false) =>
  `json_build_object('id', ${alias}."id",${withIncidentId ? ` 'incidentId', ${alias}."incidentId",` : ''} 'key', ${alias}."key", 'position', ${alias}."position",
    'status', ${alias}."status", 'version', ${alias}."version"${groupPairs('actionable', alias, columns)}${extra.map((e) => `, ${e}`).join('')})`;

const REFERENCES_OF = (actionable: string) =>
  `(SELECT COALESCE(json_agg(json_build_object('id', r."id", 'position', r."position", 'kind', r."kind", 'ref', r."ref", 'url', r."url") ORDER BY r."position"), '[]')
    FROM "ExternalReference" r WHERE r."actionableId" = ${actionable}."id")`;

/**
 * A causal factor as JSON. Under its incident it leaves out `incidentId` (see `ACTIONABLE_JSON`);
 * as a factor an actionable addresses it carries its own, since no constraint ties the two to
 * one incident (the writers do).
 */
const FACTOR_JSON = (alias: string, withIncidentId = false) =>
  `json_build_object('id', ${alias}."id",${withIncidentId ? ` 'incidentId', ${alias}."incidentId",` : ''} 'key', ${alias}."key", 'position', ${alias}."position", 'title', ${alias}."title", 'role', ${alias}."role", 'component', ${alias}."component", 'text', ${alias}."text")`;

const ADDRESSES_OF = (actionable: string) =>
  `(SELECT COALESCE(json_agg(${FACTOR_JSON('f', true)} ORDER BY f."position"), '[]')
    FROM "ActionableFactor" x JOIN "CausalFactor" f ON f."id" = x."factorId" WHERE x."actionableId" = ${actionable}."id")`;

/**
 * A short name per combination (Postgres keeps 63 characters of a statement name): the first
 * letters of the collections, then, for a kind whose columns are not all sent, the first letters
 * of the groups that are (`_a…` for the actionables, `_p…` for the patterns).
 */
function includeKey(include: IncidentInclude): string {
  const flags = Object.entries(include)
    .filter(([, on]) => on === true)
    .map(([k]) => k.slice(0, 3))
    .sort()
    .join('');
  const actionables = include.actionables ? sent('actionable', include.actionableColumns) : undefined;
  const patterns = include.patterns ? sent('pattern', include.patternColumns) : undefined;
  const initials = (groups: readonly string[]) => groups.map((g) => g[0]).join('');
  const a = actionables ? `_a${initials(columnGroups('actionable').filter((g) => actionables.includes(g)))}` : '';
  const p = patterns ? `_p${initials(columnGroups('pattern').filter((g) => patterns.includes(g)))}` : '';
  return `${flags}${a}${p}`;
}

/** Built statements by name: a combination's text is built once per process (at most 6,912 of them). */
const statements = new Map<string, Readonly<{ name: string; text: string }>>();

/**
 * Incident rows chosen by id (`$1::uuid[]`) or by slug (`$1`), with their selected children:
 * published ones only, unless `drafts` (for callers that may edit).
 */
export function incidentTreeStatement(by: 'ids' | 'slug', include: IncidentInclude, drafts = false): Readonly<{ name: string; text: string }> {
  const name = `incident_tree_${by}${drafts ? '_drafts' : ''}_${includeKey(include)}`;
  const built = statements.get(name);
  if (built) return built;
  // By slug: the current one, or one it had before a rename (an alias). Both are looked up by
  // their unique index and the ids joined; `slug = $1 OR EXISTS (alias)` cannot use either index
  // and scanned every incident (0.5-0.9 s at 100,000).
  const where =
    by === 'ids'
      ? `i."id" = ANY($1::uuid[])`
      : `i."id" IN (SELECT x."id" FROM "Incident" x WHERE x."slug" = $1 UNION ALL SELECT sa."incidentId" FROM "IncidentSlugAlias" sa WHERE sa."slug" = $1)`;
  const statement = Object.freeze({
    name,
    text: `SELECT ${treeRow(incidentTreeColumns(include))}\nFROM "Incident" i WHERE ${where}${drafts ? '' : ` AND i."status" = 'published'`}`,
  });
  statements.set(name, statement);
  return statement;
}

/**
 * A tree's columns as one JSON column, `tree`: every tree statement (the ones here and the pages
 * of incidents.service.ts) answers its rows this way. With one column per field, `pg` builds a
 * result object of thirty-odd properties per row, and the records were then copied out of it;
 * one JSON column is one JSON.parse, and its values already have the shape of the nested
 * collections' (instants and dates as epoch milliseconds). Postgres does a little more (it escapes the text
 * columns into the JSON) and the app much less: docs/benchmarks.md, "One JSON column per row of
 * a tree statement".
 */
export function treeRow(columns: string): string {
  return `(SELECT row_to_json(r) FROM (SELECT ${columns}) r) AS "tree"`;
}

/** The tree of a row a statement built with `treeRow`. */
export function treeOf(row: Record<string, unknown>): Record<string, unknown> {
  const tree = row.tree;
  if (tree === null || typeof tree !== 'object') throw new Error('a tree statement answered a row without its "tree" column (build the select list with treeRow)');
  return tree as Record<string, unknown>;
}

/**
 * The select list of an incident row (aliased `i`) with its selected children as JSON columns
 * (`j_patterns`, `j_timeline`, …), for a statement that picks the rows: by id or slug above, or
 * a page of a list (incidents.service.ts). Statements send it through `treeRow`.
 */
export function incidentTreeColumns(include: IncidentInclude): string {
  const parts = [INCIDENT_COLUMNS, include.narrative ? `i."narrative"` : `NULL::text AS "narrative"`];
  if (include.patterns) {
    parts.push(`(SELECT COALESCE(json_agg(json_build_object('id', p."id", 'key', p."key", 'name', p."name"${groupPairs('pattern', 'p', include.patternColumns)}) ORDER BY p."key"), '[]')
      FROM "IncidentPattern" ip JOIN "Pattern" p ON p."id" = ip."patternId" WHERE ip."incidentId" = i."id") AS "j_patterns"`);
  }
  if (include.timeline) {
    parts.push(`(SELECT COALESCE(json_agg(json_build_object('id', e."id", 'key', e."key", 'position', e."position", 'at', ${epochMs('e."at"')},
        'precision', e."precision", 'asWritten', e."asWritten", 'kind', e."kind", 'text', e."text") ORDER BY e."position"), '[]')
      FROM "TimelineEvent" e WHERE e."incidentId" = i."id") AS "j_timeline"`);
  }
  if (include.factors) {
    parts.push(`(SELECT COALESCE(json_agg(${FACTOR_JSON('f')} ORDER BY f."position"), '[]') FROM "CausalFactor" f WHERE f."incidentId" = i."id") AS "j_factors"`);
  }
  if (include.links) {
    parts.push(`(SELECT COALESCE(json_agg(json_build_object('id', l."id", 'fromId', l."fromId", 'toId', l."toId", 'kind', l."kind") ORDER BY l."id"), '[]')
      FROM "CausalLink" l WHERE l."incidentId" = i."id") AS "j_links"`);
  }
  if (include.actionables) {
    const extra = [include.references ? `'references', ${REFERENCES_OF('a')}` : null, include.addresses ? `'addresses', ${ADDRESSES_OF('a')}` : null].filter((e): e is string => e !== null);
    const row = ACTIONABLE_JSON('a', include.actionableColumns, extra);
    parts.push(`(SELECT COALESCE(json_agg(${row} ORDER BY a."position"), '[]') FROM "Actionable" a WHERE a."incidentId" = i."id") AS "j_actionables"`);
  }
  return parts.join(',\n  ');
}

/** The select list of an actionable row (aliased `a`, as JSON in `row`) with its selected children and incident. */
export function actionableTreeColumns(include: ActionableInclude): string {
  const parts = [`${ACTIONABLE_JSON('a', include.columns, [], true)} AS "row"`];
  if (include.references) parts.push(`${REFERENCES_OF('a')} AS "j_references"`);
  if (include.addresses) parts.push(`${ADDRESSES_OF('a')} AS "j_addresses"`);
  if (include.incident) parts.push(`(SELECT row_to_json(t) FROM (SELECT ${INCIDENT_COLUMNS} FROM "Incident" i WHERE i."id" = a."incidentId") t) AS "j_incident"`);
  return parts.join(',\n  ');
}
