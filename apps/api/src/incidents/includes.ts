import type { GraphQLResolveInfo } from 'graphql';
import { columnGroups, type ActionableColumnGroup, type ActionableInclude, type IncidentInclude, type PatternColumnGroup } from '@hindsight/incidents';
import { fieldsSelectedOn, nodesOf, perSelection, type Selection } from '../common/selection';

/**
 * The groups of an actionable's columns each field of Actionable reads from its record, beyond
 * those always sent (see COLUMN_GROUPS in incident-tree-query.ts). A field not named here would
 * read them all; test/selected-columns.spec.ts fails while the type has one, so each new field is
 * placed here deliberately, and it answers every field of the type through a statement that sends
 * only these groups and through one that sends all.
 */
export const ACTIONABLE_FIELD_COLUMNS: Readonly<Record<string, readonly ActionableColumnGroup[]>> = {
  __typename: [],
  id: [],
  key: [],
  status: [],
  version: [],
  allowedTransitions: [],
  addresses: [],
  references: [],
  incident: [],
  history: [],
  ownedBy: [],
  scenario: [],
  citedBy: [],
  title: ['words'],
  description: ['words'],
  owner: ['words'],
  dueDate: ['followUp'],
  overdue: ['followUp'],
  priority: ['followUp'],
  closedAt: ['followUp'],
  closedAtRecorded: ['followUp'],
  closedBy: ['followUp'],
  wontDoReason: ['followUp'],
  createdAt: ['stamps'],
  updatedAt: ['stamps'],
};

/** As ACTIONABLE_FIELD_COLUMNS, for the fields of Pattern. */
export const PATTERN_FIELD_COLUMNS: Readonly<Record<string, readonly PatternColumnGroup[]>> = {
  __typename: [],
  id: [],
  key: [],
  name: [],
  incidentCount: [],
  citedBy: [],
  description: ['description'],
};

/**
 * The column groups the operation's fields on a type read, wherever they are selected: the
 * records of one statement reach every field of the operation that is answered from them.
 */
function columnsRead<G extends string>(info: GraphQLResolveInfo, type: string, byField: Readonly<Record<string, readonly G[]>>, all: readonly G[]): readonly G[] {
  const groups = new Set<G>();
  for (const field of fieldsSelectedOn(info, type)) for (const g of Object.hasOwn(byField, field) ? byField[field]! : all) groups.add(g);
  return all.filter((g) => groups.has(g));
}

const actionableColumns = (info: GraphQLResolveInfo) => columnsRead(info, 'Actionable', ACTIONABLE_FIELD_COLUMNS, columnGroups('actionable'));

/** Which nested collections of an incident the query selected, so one statement loads exactly those. */
export function incidentInclude(sel: Selection, info: GraphQLResolveInfo): IncidentInclude {
  const links = sel.at('causalLinks');
  const factors = sel.at('causalFactors');
  const actionables = sel.at('actionables');
  return {
    narrative: sel.has('narrative'),
    patterns: sel.has('patterns'),
    timeline: sel.has('timeline'),
    // Links name their ends by factor id; the factors come along to resolve them.
    factors: sel.has('causalFactors') || links.has('from') || links.has('to'),
    links: sel.has('causalLinks') || factors.has('leadsTo') || factors.has('followsFrom'),
    actionables: sel.has('actionables'),
    references: actionables.has('references'),
    addresses: actionables.has('addresses'),
    actionableColumns: sel.has('actionables') ? actionableColumns(info) : undefined,
    patternColumns: sel.has('patterns') ? columnsRead(info, 'Pattern', PATTERN_FIELD_COLUMNS, columnGroups('pattern')) : undefined,
  };
}

/** Which children of an actionable the query selected, and which of its columns the operation reads. */
export function actionableInclude(sel: Selection, info: GraphQLResolveInfo): ActionableInclude {
  return { references: sel.has('references'), addresses: sel.has('addresses'), incident: sel.has('incident'), columns: actionableColumns(info) };
}

/** What an `incident` field selected, once per parsed field (see perSelection). */
export const incidentFieldInclude = perSelection(incidentInclude);

/** What the nodes of an `incidents` page selected, once per parsed field. */
export const incidentPageInclude = perSelection((sel, info) => incidentInclude(nodesOf(sel), info));

/** What the nodes of an `actionables` page selected, once per parsed field. */
export const actionablePageInclude = perSelection((sel, info) => actionableInclude(nodesOf(sel), info));
