import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { projectRoot } from '@hindsight/db';
import { issueTokens } from './support/api-tokens';
import { attachSeedModels } from './support/model-seeds';
import { tableHashes } from './support/table-hash';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Hostile values sent to every argument of every mutation, and to search. Each case names the
 * error it must get (code and field), and afterwards every table holds exactly what it held
 * before. The mutations and their arguments come from the live schema: a mutation or an
 * argument without a row here fails the suite.
 *
 * Every request is built so that, with harmless values, it is refused for a known reason that
 * writes nothing (a stale version, a taken slug, an unknown token): the `base` outcome. A value
 * that is legal text (an SQL fragment in a note, a script tag in a title) must lead to exactly
 * that outcome — it is data, not code — and a value that is not storable must be refused first,
 * naming its field.
 */

const MB = 1024 * 1024;
const deepJson = (levels: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = { next: value };
  return value;
};

/** The hostile values, by name. */
const HOSTILE = {
  sql: `x'); DROP TABLE "Incident"; --`,
  script: '<script>alert(1)</script>',
  jsUrl: 'javascript:alert(document.cookie)',
  nul: 'before\u0000after',
  surrogate: 'half \ud800 a pair',
  mb1: 'a'.repeat(MB + 1),
  mb20: 'a'.repeat(20 * MB),
  badDate: '2026-02-30T10:00:00Z',
  notDate: 'yesterday',
  negative: -1,
  huge: 2 ** 31,
  hugeFloat: 1e308,
  nan: 'NaN',
  fraction: 1.5,
  enum: 'NOT_A_VALUE',
  deepJson: deepJson(200),
} as const;
type Hostile = keyof typeof HOSTILE;

/** What a case must get: `base` is the row's harmless refusal; `413` the body limit. */
type Outcome = 'base' | '413' | { code: string; field?: string };
const bad = (field: string): Outcome => ({ code: 'BAD_USER_INPUT', field });

type Kind = 'text' | 'name' | 'int' | 'float' | 'enum' | 'json' | 'date' | 'url' | 'list';

/** The hostile values tried on each kind of value, and what each must get by default. */
function defaults(kind: Kind, field: string): Partial<Record<Hostile, Outcome>> {
  const unstorable = { nul: bad(field), surrogate: bad(field) } as const;
  switch (kind) {
    case 'text': // free text: anything storable is data
      return { sql: 'base', script: 'base', jsUrl: 'base', badDate: 'base', ...unstorable, mb1: bad(field), mb20: '413', negative: bad(field), enum: 'base' };
    case 'name': // slugs, keys, ids and names that must match something
      return { sql: bad(field), script: bad(field), jsUrl: bad(field), ...unstorable, mb1: bad(field), mb20: '413', negative: bad(field) };
    case 'url':
      return { jsUrl: bad(field), script: bad(field), sql: bad(field), ...unstorable, mb1: bad(field) };
    case 'date':
      return { badDate: bad(field), notDate: bad(field), sql: bad(field), ...unstorable, mb1: bad(field) };
    case 'int':
      return { negative: bad(field), huge: bad(field), nan: bad(field), fraction: bad(field), sql: bad(field) };
    case 'float':
      return { negative: bad(field), hugeFloat: bad(field), nan: bad(field), sql: bad(field) };
    case 'enum':
      return { enum: bad(field), sql: bad(field), script: bad(field), negative: bad(field) };
    case 'json':
      return { deepJson: bad(field), ...unstorable, sql: bad(field), script: bad(field), mb20: '413' };
    case 'list':
      return { sql: bad(field), ...unstorable, enum: bad(field) };
  }
}

interface Target {
  /** Path inside the argument's value where the hostile value goes; empty for the argument itself. */
  at?: (string | number)[];
  kind: Kind;
  /** Cases that differ from the kind's defaults. */
  expect?: Partial<Record<Hostile, Outcome>>;
}

interface Row {
  role: 'editor' | 'admin';
  /** Harmless variables for every argument the request sends. */
  base: () => Record<string, unknown>;
  /** What the harmless request gets. */
  baseOutcome: { code: string; field?: string };
  /** One or more targets per argument of the mutation; `[]` states that an argument takes no hostile value. */
  args: Record<string, Target[]>;
}

const SLUG = 'stackegg-haproxy-session-cap-2015';
const STALE = 10_000;

interface Fixtures {
  version: number;
  actionableId: string;
  actionableVersion: number;
  actionableKey: string;
  factorKey: string;
  timelineKey: string;
  link: { from: string; to: string; kind: string };
  modelSpec: Record<string, unknown>;
}
let f: Fixtures;

const CONFLICT = { code: 'CONFLICT' };
const NO_INCIDENT = Buffer.from('Incident:00000000-0000-4000-8000-000000000000', 'utf8').toString('base64url');
const NO_CITATION = Buffer.from('RunbookCitation:00000000-0000-4000-8000-000000000000', 'utf8').toString('base64url');
const textTargets = (...targets: Target[]) => targets;

/** A parameter name the model does not declare (the message lists the ones it does). */
const BAD_PARAMETER: Outcome = { code: 'BAD_USER_INPUT' };

const PUBLISHED_SOURCE = 'https://example.org/postmortems/published';
const PUBLISHED_DOCUMENT = '# Cache stampede\n\n## Summary\n\nThe cache emptied and every request went to the database.\n\n## Timeline\n\n- 10:00 UTC cache flushed\n- 10:05 UTC database saturated\n';

const ROWS: Record<string, Row> = {
  attachModel: {
    role: 'editor',
    base: () => ({ incident: SLUG, model: SLUG, version: '99.0.0', defaultParameters: [{ name: 'keepAliveSeconds', value: 5 }] }),
    baseOutcome: { code: 'NOT_FOUND', field: 'version' },
    args: {
      incident: [{ kind: 'name', expect: notFound('incident') }],
      model: [{ kind: 'name', expect: notFound('model') }],
      version: [{ kind: 'name', expect: notFound('version') }],
      // Parameters are checked against the model's declared ranges, so only once the model is found.
      defaultParameters: [
        { at: [0, 'value'], kind: 'float', expect: { negative: 'base', hugeFloat: 'base' } },
        { at: [0, 'name'], kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base', mb1: 'base', negative: bad('defaultParameters[0].name') } },
      ],
    },
  },
  createActionable: {
    role: 'editor',
    base: () => ({ incident: SLUG, key: f.actionableKey, title: 'Add a keep-alive budget', note: 'why' }),
    baseOutcome: CONFLICT,
    args: {
      title: [{ kind: 'text' }],
      description: [{ kind: 'text' }],
      owner: [{ kind: 'text' }],
      // Names are resolved inside the write, after the key (taken here) is checked.
      ownerAccount: [{ kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base' } }],
      ownerTeam: [{ kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base' } }],
      key: [{ kind: 'name' }],
      incident: [{ kind: 'name', expect: notFound('incident') }],
      dueDate: [{ kind: 'date' }],
      priority: [{ kind: 'enum' }],
      references: [{ at: [0], kind: 'url' }],
      addresses: [{ at: [0], kind: 'name' }],
      note: [{ kind: 'text' }],
    },
  },
  createIncident: {
    role: 'editor',
    base: () => ({
      slug: SLUG,
      title: 'A second StackEgg',
      organization: 'Stack Exchange',
      summary: 'Again.',
      source: { title: 'Blog', url: 'https://example.org/post', language: 'en' },
      timeline: [{ key: 'first', at: '2015-03-31T10:23:14Z', precision: 'SECOND', kind: 'TRIGGER', text: 'It starts.' }],
      impact: 'Slow pages.',
      components: ['haproxy'],
      keyTimes: { started: { at: '2015-03-31T10:23:14Z', precision: 'SECOND' } },
      causalFactors: [
        { key: 'cap', role: 'LATENT', component: 'haproxy', text: 'A session cap.' },
        { key: 'load', role: 'TRIGGER', component: 'game', text: 'More sessions.' },
      ],
      causalLinks: [{ from: 'load', to: 'cap', kind: 'CAUSES' }],
      actionables: [{ key: 'raise-cap', title: 'Raise the cap.' }],
      severity: 'SEV2',
      nearMiss: false,
      tags: ['haproxy'],
      customerImpact: { minutes: 6, precision: 'MINUTE' },
      note: 'why',
      status: 'DRAFT',
    }),
    baseOutcome: CONFLICT,
    args: {
      title: [{ kind: 'text' }],
      summary: [{ kind: 'text' }],
      narrative: [{ kind: 'text' }],
      impact: [{ kind: 'text' }],
      organization: [{ kind: 'text' }],
      components: [{ at: [0], kind: 'text' }],
      slug: [{ kind: 'name' }],
      source: [{ at: ['url'], kind: 'url' }],
      timeline: [
        { at: [0, 'at'], kind: 'date' },
        { at: [0, 'kind'], kind: 'enum' },
      ],
      keyTimes: [{ at: ['started', 'at'], kind: 'date' }],
      causalFactors: [{ at: [0, 'text'], kind: 'text' }],
      causalLinks: [{ at: [0, 'kind'], kind: 'enum' }],
      actionables: [{ at: [0, 'title'], kind: 'text' }],
      patterns: [{ at: [0], kind: 'list' }],
      // A level of the configured scale, so anything else is refused like an unknown name.
      severity: [{ kind: 'name' }],
      nearMiss: [{ kind: 'enum' }],
      // Tags are normalised free labels: markup and SQL become harmless words.
      tags: [{ at: [0], kind: 'text' }],
      customerImpact: [
        { at: ['minutes'], kind: 'int' },
        { at: ['precision'], kind: 'enum' },
      ],
      note: [{ kind: 'text' }],
      status: [{ kind: 'enum' }],
    },
  },
  createModelSpec: {
    role: 'editor',
    base: () => ({ spec: { ...f.modelSpec, title: 'Other content under a stored version' } }),
    baseOutcome: CONFLICT,
    args: {
      spec: [
        { at: ['title'], kind: 'json', expect: { sql: 'base', script: 'base', deepJson: bad('spec') } },
        { at: ['stations', 0, 'slots'], kind: 'json', expect: { negative: bad('spec.stations[0].slots'), deepJson: bad('spec') } },
        { kind: 'json' },
      ],
    },
  },
  deleteActionable: {
    role: 'admin',
    base: () => ({ id: f.actionableId, expectedVersion: f.actionableVersion + STALE, note: 'why' }),
    baseOutcome: CONFLICT,
    args: { id: [{ kind: 'name', expect: notFoundId('id') }], expectedVersion: [{ kind: 'int' }], note: [{ kind: 'text' }] },
  },
  deleteCausalFactor: {
    role: 'editor',
    base: () => ({ slug: SLUG, key: f.factorKey, expectedVersion: f.version + STALE, note: 'why' }),
    baseOutcome: CONFLICT,
    args: { slug: [{ kind: 'name', expect: notFound('slug') }], key: [{ kind: 'name', expect: notFound('key') }], expectedVersion: [{ kind: 'int' }], note: [{ kind: 'text' }] },
  },
  deleteCausalLink: {
    role: 'editor',
    base: () => ({ slug: SLUG, link: f.link, expectedVersion: f.version + STALE, note: 'why' }),
    baseOutcome: CONFLICT,
    args: {
      slug: [{ kind: 'name', expect: notFound('slug') }],
      link: [{ at: ['from'], kind: 'name', expect: { ...notFound('link'), negative: bad('link.from') } }, { at: ['kind'], kind: 'enum' }],
      expectedVersion: [{ kind: 'int' }],
      note: [{ kind: 'text' }],
    },
  },
  deleteIncident: {
    role: 'admin',
    base: () => ({ slug: SLUG, expectedVersion: f.version + STALE, note: 'why' }),
    baseOutcome: CONFLICT,
    args: { slug: [{ kind: 'name', expect: notFound('slug') }], expectedVersion: [{ kind: 'int' }], note: [{ kind: 'text' }] },
  },
  deleteTimelineEvent: {
    role: 'editor',
    base: () => ({ slug: SLUG, key: f.timelineKey, expectedVersion: f.version + STALE, note: 'why' }),
    baseOutcome: CONFLICT,
    args: { slug: [{ kind: 'name', expect: notFound('slug') }], key: [{ kind: 'name', expect: notFound('key') }], expectedVersion: [{ kind: 'int' }], note: [{ kind: 'text' }] },
  },
  importPostmortem: {
    role: 'editor',
    // The source URL of a document already imported and published: any import of it is refused.
    base: () => ({ document: PUBLISHED_DOCUMENT, format: 'MARKDOWN', sourceUrl: PUBLISHED_SOURCE }),
    baseOutcome: { code: 'CONFLICT', field: 'document' },
    args: {
      document: [{ kind: 'text', expect: { mb1: bad('document'), negative: bad('document') } }],
      format: [{ kind: 'enum' }],
      sourceUrl: [{ kind: 'url', expect: { jsUrl: bad('sourceUrl'), script: bad('sourceUrl'), sql: bad('sourceUrl'), mb1: bad('sourceUrl') } }],
    },
  },
  publishIncident: {
    role: 'editor',
    base: () => ({ slug: SLUG, expectedVersion: f.version }),
    baseOutcome: { code: 'BAD_USER_INPUT', field: 'slug' },
    args: { slug: [{ kind: 'name', expect: notFound('slug') }], expectedVersion: [{ kind: 'int' }] },
  },
  createAccount: {
    role: 'admin',
    // A name an account already has: refused before anything is written.
    base: () => ({ name: 'taken-person', role: 'VIEWER' }),
    baseOutcome: CONFLICT,
    args: { name: [{ kind: 'name', expect: { sql: bad('name'), script: bad('name'), jsUrl: bad('name'), mb1: bad('name') } }], role: [{ kind: 'enum' }] },
  },
  updateAccount: {
    role: 'admin',
    base: () => ({ account: 'no-such-person', role: 'EDITOR' }),
    baseOutcome: { code: 'NOT_FOUND', field: 'account' },
    // `disabled` is a Boolean: like an enum, any other value is refused by the schema.
    args: { account: [{ kind: 'name', expect: { ...notFound('account'), negative: { code: 'NOT_FOUND', field: 'account' } } }], role: [{ kind: 'enum' }], disabled: [{ kind: 'enum' }] },
  },
  resetAccountPassword: {
    role: 'admin',
    base: () => ({ account: 'no-such-person' }),
    baseOutcome: { code: 'NOT_FOUND', field: 'account' },
    args: { account: [{ kind: 'name', expect: { ...notFound('account'), negative: { code: 'NOT_FOUND', field: 'account' } } }] },
  },
  citeInRunbook: {
    role: 'editor',
    // A well-formed id of an incident that does not exist: nothing to cite.
    base: () => ({ url: 'https://wiki.example.com/runbooks/hostile', title: 'Hostile runbook', target: NO_INCIDENT }),
    baseOutcome: { code: 'NOT_FOUND', field: 'target' },
    args: { url: [{ kind: 'url' }], title: [{ kind: 'text' }], target: [{ kind: 'name', expect: notFoundId('target') }] },
  },
  removeRunbookCitation: {
    role: 'editor',
    base: () => ({ citationId: NO_CITATION }),
    baseOutcome: { code: 'NOT_FOUND', field: 'citationId' },
    args: { citationId: [{ kind: 'name', expect: notFoundId('citationId') }] },
  },
  createTeam: {
    role: 'admin',
    base: () => ({ name: 'Taken team' }),
    baseOutcome: CONFLICT,
    args: { name: [{ kind: 'name' }] },
  },
  deleteTeam: {
    role: 'admin',
    base: () => ({ team: 'no-such-team' }),
    baseOutcome: { code: 'NOT_FOUND', field: 'team' },
    args: { team: [{ kind: 'name', expect: notFound('team') }] },
  },
  addTeamMember: {
    role: 'admin',
    base: () => ({ team: 'no-such-team', account: 'taken-person' }),
    baseOutcome: { code: 'NOT_FOUND', field: 'team' },
    args: { team: [{ kind: 'name', expect: notFound('team') }], account: [{ kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base', mb1: 'base' } }] },
  },
  removeTeamMember: {
    role: 'admin',
    base: () => ({ team: 'no-such-team', account: 'taken-person' }),
    baseOutcome: { code: 'NOT_FOUND', field: 'team' },
    args: { team: [{ kind: 'name', expect: notFound('team') }], account: [{ kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base', mb1: 'base' } }] },
  },
  revokeApiToken: {
    role: 'admin',
    base: () => ({ token: 'no-such-token', note: 'why' }),
    baseOutcome: { code: 'NOT_FOUND', field: 'token' },
    args: { token: [{ kind: 'name', expect: { ...notFound('token'), negative: { code: 'NOT_FOUND', field: 'token' } } }], note: [{ kind: 'text' }] },
  },
  runModelEnsemble: {
    role: 'editor',
    base: () => ({ incident: SLUG, scenario: 'no-such-scenario', seeds: 2, seed: 1, parameters: [{ name: 'keepAliveSeconds', value: 5 }] }),
    baseOutcome: { code: 'BAD_USER_INPUT', field: 'scenario' },
    args: {
      incident: [{ kind: 'name', expect: notFound('incident') }],
      scenario: [{ kind: 'name' }],
      seeds: [{ kind: 'int' }],
      seed: [{ kind: 'int' }],
      parameters: [{ at: [0, 'value'], kind: 'float', expect: { negative: bad('parameters.keepAliveSeconds'), hugeFloat: bad('parameters.keepAliveSeconds') } }],
    },
  },
  runModelSweep: {
    role: 'editor',
    base: () => ({ incident: SLUG, scenario: 'no-such-scenario', seed: 1, parameters: [{ name: 'keepAliveSeconds', value: 5 }], axes: [{ parameter: 'keepAliveSeconds', from: 1, to: 10, count: 3 }] }),
    baseOutcome: { code: 'BAD_USER_INPUT', field: 'scenario' },
    args: {
      incident: [{ kind: 'name', expect: notFound('incident') }],
      scenario: [{ kind: 'name' }],
      seed: [{ kind: 'int' }],
      parameters: [{ at: [0, 'value'], kind: 'float', expect: { negative: bad('parameters.keepAliveSeconds'), hugeFloat: bad('parameters.keepAliveSeconds') } }],
      // The scenario is refused before the sweep's own values are read.
      axes: [
        { at: [0, 'parameter'], kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base', mb1: 'base' } },
        { at: [0, 'count'], kind: 'int', expect: { negative: 'base' } },
        { at: [0, 'to'], kind: 'float', expect: { negative: 'base', hugeFloat: 'base' } },
      ],
    },
  },
  findModelBoundary: {
    role: 'editor',
    base: () => ({
      incident: SLUG,
      scenario: 'no-such-scenario',
      parameter: 'keepAliveSeconds',
      from: 1,
      to: 10,
      seed: 1,
      parameters: [{ name: 'keepAliveSeconds', value: 5 }],
      figure: { name: 'stackegg-demand', op: 'ABOVE', value: 40000 },
    }),
    baseOutcome: { code: 'BAD_USER_INPUT', field: 'scenario' },
    args: {
      incident: [{ kind: 'name', expect: notFound('incident') }],
      scenario: [{ kind: 'name' }],
      parameter: [{ kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base', mb1: 'base' } }],
      from: [{ kind: 'float', expect: { negative: 'base', hugeFloat: 'base' } }],
      to: [{ kind: 'float', expect: { negative: 'base', hugeFloat: 'base' } }],
      tolerance: [{ kind: 'float', expect: { negative: 'base', hugeFloat: 'base' } }],
      // The check a search bisects on is looked up before the scenario: an unknown one is refused by name.
      check: [{ kind: 'name' }],
      // So is the figure; any finite value to cross is legal (a figure may be negative).
      figure: [
        { at: ['name'], kind: 'name' },
        { at: ['op'], kind: 'enum' },
        { at: ['value'], kind: 'float', expect: { negative: 'base', hugeFloat: 'base' } },
      ],
      seed: [{ kind: 'int' }],
      parameters: [{ at: [0, 'value'], kind: 'float', expect: { negative: bad('parameters.keepAliveSeconds'), hugeFloat: bad('parameters.keepAliveSeconds') } }],
    },
  },
  attachSuggestedModel: {
    role: 'editor',
    // The template is looked up first; an unknown one is refused before the incident is read.
    base: () => ({ incident: SLUG, template: 'no-such-template', expectedModel: null, parameters: [{ name: 'rate', value: 5 }] }),
    baseOutcome: { code: 'BAD_USER_INPUT', field: 'template' },
    args: {
      incident: [{ kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base', mb1: 'base' } }],
      template: [{ kind: 'name' }],
      expectedModel: [{ kind: 'name', expect: { sql: 'base', script: 'base', jsUrl: 'base', mb1: 'base' } }],
      parameters: [{ at: [0, 'value'], kind: 'float', expect: { negative: 'base', hugeFloat: 'base' } }],
    },
  },
  runModel: {
    role: 'editor',
    base: () => ({ incident: SLUG, scenario: 'no-such-scenario', parameters: [{ name: 'keepAliveSeconds', value: 5 }], seed: 1 }),
    baseOutcome: { code: 'BAD_USER_INPUT', field: 'scenario' },
    args: {
      incident: [{ kind: 'name', expect: notFound('incident') }],
      scenario: [{ kind: 'name' }],
      parameters: [
        { at: [0, 'value'], kind: 'float', expect: { negative: bad('parameters.keepAliveSeconds'), hugeFloat: bad('parameters.keepAliveSeconds') } },
        { at: [0, 'name'], kind: 'name', expect: { sql: BAD_PARAMETER, script: BAD_PARAMETER, jsUrl: BAD_PARAMETER, mb1: BAD_PARAMETER } },
      ],
      seed: [{ kind: 'int' }],
    },
  },
  transitionActionable: {
    role: 'editor',
    base: () => ({ id: f.actionableId, expectedVersion: f.actionableVersion + STALE, to: 'IN_PROGRESS', note: 'why' }),
    baseOutcome: CONFLICT,
    args: { id: [{ kind: 'name', expect: notFoundId('id') }], expectedVersion: [{ kind: 'int' }], to: [{ kind: 'enum' }], note: [{ kind: 'text' }] },
  },
  updateActionable: {
    role: 'editor',
    base: () => ({ id: f.actionableId, expectedVersion: f.actionableVersion + STALE, patch: { title: 'Renamed', owner: 'sre' }, note: 'why' }),
    baseOutcome: CONFLICT,
    args: {
      id: [{ kind: 'name', expect: notFoundId('id') }],
      expectedVersion: [{ kind: 'int' }],
      patch: [
        { at: ['title'], kind: 'text' },
        { at: ['description'], kind: 'text' },
        { at: ['owner'], kind: 'text' },
        // The harmless patch sets `owner`: a second owner field is refused whatever its value.
        { at: ['ownerAccount'], kind: 'name' },
        { at: ['ownerTeam'], kind: 'name' },
        { at: ['dueDate'], kind: 'date' },
        { at: ['priority'], kind: 'enum' },
        { at: ['references', 0], kind: 'url' },
        { at: ['addresses', 0], kind: 'name' },
      ],
      note: [{ kind: 'text' }],
    },
  },
  updateIncident: {
    role: 'editor',
    base: () => ({
      slug: SLUG,
      expectedVersion: f.version + STALE,
      patch: {
        title: 'Renamed',
        summary: 'Shorter.',
        keyTimes: { started: { at: '2015-03-31T10:23:14Z', precision: 'SECOND' } },
        tags: ['haproxy'],
        customerImpact: { minutes: 6, precision: 'MINUTE' },
      },
      note: 'why',
    }),
    baseOutcome: CONFLICT,
    args: {
      slug: [{ kind: 'name', expect: notFound('slug') }],
      expectedVersion: [{ kind: 'int' }],
      patch: [
        { at: ['title'], kind: 'text' },
        { at: ['summary'], kind: 'text' },
        { at: ['narrative'], kind: 'text' },
        { at: ['impact'], kind: 'text' },
        { at: ['slug'], kind: 'name' },
        { at: ['status'], kind: 'enum' },
        { at: ['source', 'url'], kind: 'url' },
        { at: ['keyTimes', 'started', 'at'], kind: 'date' },
        { at: ['patterns', 0], kind: 'list' },
        { at: ['severity'], kind: 'name' },
        { at: ['nearMiss'], kind: 'enum' },
        { at: ['tags', 0], kind: 'text' },
        { at: ['customerImpact', 'minutes'], kind: 'int' },
        { at: ['customerImpact', 'precision'], kind: 'enum' },
      ],
      note: [{ kind: 'text' }],
    },
  },
  upsertCausalFactor: {
    role: 'editor',
    base: () => ({ slug: SLUG, expectedVersion: f.version + STALE, factor: { key: f.factorKey, role: 'CONDITION', component: 'haproxy', text: 'Sessions pile up.' }, position: 0, note: 'why' }),
    baseOutcome: CONFLICT,
    args: {
      slug: [{ kind: 'name', expect: notFound('slug') }],
      expectedVersion: [{ kind: 'int' }],
      factor: [{ at: ['text'], kind: 'text' }, { at: ['component'], kind: 'text' }, { at: ['key'], kind: 'name' }, { at: ['role'], kind: 'enum' }],
      position: [{ kind: 'int' }],
      note: [{ kind: 'text' }],
    },
  },
  upsertCausalLink: {
    role: 'editor',
    base: () => ({ slug: SLUG, expectedVersion: f.version + STALE, link: f.link, note: 'why' }),
    baseOutcome: CONFLICT,
    args: {
      slug: [{ kind: 'name', expect: notFound('slug') }],
      expectedVersion: [{ kind: 'int' }],
      link: [{ at: ['from'], kind: 'name' }, { at: ['to'], kind: 'name' }, { at: ['kind'], kind: 'enum' }],
      note: [{ kind: 'text' }],
    },
  },
  upsertTimelineEvent: {
    role: 'editor',
    base: () => ({ slug: SLUG, expectedVersion: f.version + STALE, event: { key: f.timelineKey, at: '2015-03-31T10:23:14Z', precision: 'SECOND', kind: 'TRIGGER', text: 'It starts.' }, position: 0, note: 'why' }),
    baseOutcome: CONFLICT,
    args: {
      slug: [{ kind: 'name', expect: notFound('slug') }],
      expectedVersion: [{ kind: 'int' }],
      event: [{ at: ['text'], kind: 'text' }, { at: ['asWritten'], kind: 'text' }, { at: ['at'], kind: 'date' }, { at: ['key'], kind: 'name' }, { at: ['kind'], kind: 'enum' }, { at: ['precision'], kind: 'enum' }],
      position: [{ kind: 'int' }],
      note: [{ kind: 'text' }],
    },
  },
};

/** Names that are well-formed text but name nothing: NOT_FOUND, naming the field. */
function notFound(field: string): Partial<Record<Hostile, Outcome>> {
  const nf = { code: 'NOT_FOUND', field };
  return { sql: nf, script: nf, jsUrl: nf, mb1: nf };
}

/** ID arguments take the API's global ids: anything else is refused as no id of this API. */
function notFoundId(field: string): Partial<Record<Hostile, Outcome>> {
  const refused = bad(field);
  return { sql: refused, script: refused, jsUrl: refused, mb1: refused, negative: refused };
}

interface MutationShape {
  name: string;
  inputType: string;
  args: { name: string; type: string }[];
  returnsObject: boolean;
}

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
const printType = (t: TypeRef): string => (t.kind === 'NON_NULL' ? `${printType(t.ofType!)}!` : t.kind === 'LIST' ? `[${printType(t.ofType!)}]` : t.name!);
const namedKind = (t: TypeRef): string => (t.ofType ? namedKind(t.ofType) : t.kind);

/** A copy of `value` with `hostile` placed at the path `at`. */
function setAt(value: unknown, at: (string | number)[], hostile: unknown): unknown {
  if (at.length === 0) return hostile;
  const [head, ...rest] = at as [string | number, ...(string | number)[]];
  const inner = (value as Record<string | number, unknown> | undefined)?.[head];
  if (typeof head === 'number') {
    const list = Array.isArray(value) ? [...(value as unknown[])] : [];
    list[head] = setAt(inner, rest, hostile);
    return list;
  }
  return { ...((value ?? {}) as Record<string, unknown>), [head]: setAt(inner, rest, hostile) };
}

const fieldOf = (arg: string, at: (string | number)[] = []) => arg + at.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');

describe('hostile values in every mutation argument and in search', () => {
  let t: TestApp;
  let as: (role: 'viewer' | 'editor' | 'admin') => Record<string, string>;
  let mutations: MutationShape[];

  beforeAll(async () => {
    t = await startTestApp();
    await attachSeedModels(t.app);
    as = (await issueTokens(t)).as;
    const taken = await t.gql('mutation { createAccount(input: { name: "taken-person", role: VIEWER }) { account { name } } }', {}, as('admin'));
    expect(taken.errors).toBeUndefined();
    const team = await t.gql('mutation { createTeam(input: { name: "Taken team" }) { team { name } } }', {}, as('admin'));
    expect(team.errors).toBeUndefined();
    const imported = await t.gql<{ importPostmortem: { incident: { slug: string; version: number } } }>(
      'mutation($i: ImportPostmortemInput!) { importPostmortem(input: $i) { incident { slug version } } }',
      { i: { document: PUBLISHED_DOCUMENT, format: 'MARKDOWN', sourceUrl: PUBLISHED_SOURCE } },
      as('editor'),
    );
    const draft = imported.data.importPostmortem.incident;
    const published = await t.gql('mutation($s: String!, $v: Int!) { publishIncident(input: { slug: $s, expectedVersion: $v }) { incident { status } } }', { s: draft.slug, v: draft.version }, as('editor'));
    expect(published.errors).toBeUndefined();
    // Every mutation takes one `input` object: its fields are what a caller sets.
    const schema = await t.gql<{
      __schema: { mutationType: { fields: { name: string; args: { name: string; type: TypeRef }[]; type: TypeRef }[] }; types: { name: string; inputFields: { name: string; type: TypeRef }[] | null }[] };
    }>(`{ __schema { mutationType { fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } types { name inputFields { name type { ${TYPE_REF} } } } } }`);
    const inputTypes = new Map(schema.data.__schema.types.map((ty) => [ty.name, ty.inputFields ?? []]));
    mutations = schema.data.__schema.mutationType.fields.map((m) => {
      expect(m.args.map((a) => a.name)).toEqual(['input']);
      const inputType = printType(m.args[0]!.type);
      return {
        name: m.name,
        inputType,
        args: inputTypes.get(inputType.replace(/!$/, ''))!.map((a) => ({ name: a.name, type: printType(a.type) })),
        returnsObject: namedKind(m.type) === 'OBJECT',
      };
    });
    const incident = await t.gql<{
      incident: { version: number; timeline: { key: string }[]; causalFactors: { key: string }[]; causalLinks: { kind: string; from: { key: string }; to: { key: string } }[]; actionables: { id: string; key: string; version: number }[] };
    }>(`{ incident(slug: "${SLUG}") { version timeline { key } causalFactors { key } causalLinks { kind from { key } to { key } } actionables { id key version } } }`);
    const i = incident.data.incident;
    const link = i.causalLinks[0]!;
    f = {
      version: i.version,
      actionableId: i.actionables[0]!.id,
      actionableVersion: i.actionables[0]!.version,
      actionableKey: i.actionables[0]!.key,
      factorKey: i.causalFactors[0]!.key,
      timelineKey: i.timeline[0]!.key,
      link: { from: link.from.key, to: link.to.key, kind: link.kind },
      modelSpec: JSON.parse(fs.readFileSync(path.join(projectRoot(), 'seeds', 'models', `${SLUG}.model.json`), 'utf8')) as Record<string, unknown>,
    };
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has a row for every mutation and every argument of the live schema', () => {
    const live = mutations.map((m) => `${m.name}(${m.args.map((a) => a.name).sort().join(', ')})`).sort();
    const table = Object.entries(ROWS)
      .map(([name, row]) => `${name}(${Object.keys(row.args).sort().join(', ')})`)
      .sort();
    expect(table).toEqual(live);
    const withoutTargets = Object.entries(ROWS).flatMap(([name, row]) => Object.entries(row.args).filter(([, targets]) => targets.length === 0).map(([arg]) => `${name}.${arg}`));
    expect(withoutTargets).toEqual([]);
  });

  const send = async (mutation: MutationShape, variables: Record<string, unknown>, headers: Record<string, string>) => {
    const input = Object.fromEntries(mutation.args.filter((a) => variables[a.name] !== undefined).map((a) => [a.name, variables[a.name]]));
    const query = `mutation($input: ${mutation.inputType}) { ${mutation.name}(input: $input)${mutation.returnsObject ? ' { __typename }' : ''} }`;
    const res = await request(t.app.getHttpServer()).post('/graphql').set(headers).set('content-type', 'application/json').send(JSON.stringify({ query, variables: { input } }));
    return res;
  };

  /** Errors name fields as the request does: under `input`. */
  const underInput = (outcome: Outcome): Outcome => (typeof outcome === 'object' && outcome.field ? { ...outcome, field: `input.${outcome.field}` } : outcome);

  // Several hundred requests, some of a megabyte or more: more than the default per-test allowance.
  it('gives each hostile value its specific error, and writes nothing', async () => {
    const before = await tableHashes(t.db.url);
    const failures: string[] = [];
    let cases = 0;
    for (const [name, row] of Object.entries(ROWS)) {
      const mutation = mutations.find((m) => m.name === name);
      if (!mutation) continue; // the coverage test reports it
      const headers = as(row.role);
      // The body limit applies before any argument is read, so one 20 MB request per mutation
      // proves it; sending one per argument would only move 800 MB through the loopback.
      let sentHuge = false;
      const baseRes = await send(mutation, row.base(), headers);
      const baseError = baseRes.body.errors?.[0]?.extensions;
      if (baseError?.code !== row.baseOutcome.code || (row.baseOutcome.field && baseError?.field !== `input.${row.baseOutcome.field}`)) {
        failures.push(`${name} with harmless values: expected ${JSON.stringify(row.baseOutcome)}, got ${JSON.stringify(baseRes.body).slice(0, 300)}`);
      }
      for (const [arg, targets] of Object.entries(row.args)) {
        for (const target of targets) {
          const field = fieldOf(arg, target.at);
          const expected = { ...defaults(target.kind, field), ...target.expect };
          for (const [hostile, outcome] of Object.entries(expected) as [Hostile, Outcome][]) {
            if (outcome === undefined) continue;
            if (hostile === 'mb20') {
              if (sentHuge) continue;
              sentHuge = true;
            }
            cases++;
            const base = row.base();
            const variables = { ...base, [arg]: setAt(base[arg], target.at ?? [], HOSTILE[hostile]) };
            const res = await send(mutation, variables, headers);
            const got = res.status === 413 ? '413' : res.body.errors?.[0]?.extensions ? { code: res.body.errors[0].extensions.code, field: res.body.errors[0].extensions.field } : 'accepted';
            const want = underInput(outcome === 'base' ? row.baseOutcome : outcome) as Exclude<Outcome, 'base'>;
            const matches =
              want === '413'
                ? got === '413' && res.body.code === 'BAD_USER_INPUT'
                : typeof got === 'object' && got.code === want.code && (want.field === undefined || got.field === want.field);
            if (!matches) failures.push(`${name} ${field} = ${hostile}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)} ${String(res.body.errors?.[0]?.message ?? '').slice(0, 160)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(cases).toBeGreaterThan(500);
    expect(await tableHashes(t.db.url)).toEqual(before);
  }, 300_000);

  it.each([
    ['incidents', 'query($v: String) { incidents(filter: { text: $v }) { totalCount } }', 'filter.text'],
    ['actionables', 'query($v: String) { actionables(filter: { owner: $v }) { totalCount } }', 'filter.owner'],
  ])('gives hostile search text in %s a result or its specific error', async (_name, query, field) => {
    const before = await tableHashes(t.db.url);
    const expected: Partial<Record<Hostile, Outcome | 'ok'>> = {
      sql: 'ok',
      script: 'ok',
      jsUrl: 'ok',
      badDate: 'ok',
      nul: bad(field),
      surrogate: bad(field),
      mb1: bad(field),
      mb20: '413',
      negative: bad(field),
      deepJson: bad(field),
    };
    const failures: string[] = [];
    for (const [hostile, outcome] of Object.entries(expected) as [Hostile, Outcome | 'ok'][]) {
      const res = await request(t.app.getHttpServer()).post('/graphql').set('content-type', 'application/json').send(JSON.stringify({ query, variables: { v: HOSTILE[hostile] } }));
      const error = res.body.errors?.[0]?.extensions;
      const ok =
        outcome === 'ok'
          ? res.status === 200 && !res.body.errors && res.body.data !== null
          : outcome === '413'
            ? res.status === 413 && res.body.code === 'BAD_USER_INPUT'
            : outcome !== 'base' && error?.code === outcome.code && error?.field === outcome.field;
      if (!ok) failures.push(`${hostile}: expected ${JSON.stringify(outcome)}, got ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(await tableHashes(t.db.url)).toEqual(before);
  });
});
