import type { ActionableInclude, IncidentInclude } from '@hindsight/incidents';
import { nodesOf, perSelection, type Selection } from '../common/selection';

/** Which nested collections of an incident the query selected, so one statement loads exactly those. */
export function incidentInclude(sel: Selection): IncidentInclude {
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
  };
}

/** Which children of an actionable the query selected. */
export function actionableInclude(sel: Selection): ActionableInclude {
  return { references: sel.has('references'), addresses: sel.has('addresses'), incident: sel.has('incident') };
}

/** What an `incident` field selected, once per parsed field (see perSelection). */
export const incidentFieldInclude = perSelection(incidentInclude);

/** What the nodes of an `incidents` page selected, once per parsed field. */
export const incidentPageInclude = perSelection((sel) => incidentInclude(nodesOf(sel)));

/** What the nodes of an `actionables` page selected, once per parsed field. */
export const actionablePageInclude = perSelection((sel) => actionableInclude(nodesOf(sel)));
