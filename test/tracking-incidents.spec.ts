import { Client } from 'pg';
import type { PrismaService } from '@hindsight/db';
import { gid } from './support/global-ids';
import { issueTokens } from './support/api-tokens';
import { startTestApp, type TestApp } from './support/test-app';
import { testPrisma } from './support/test-db';

const INCIDENT = `slug status version title summary
  timeline { key at precision kind text }
  causalFactors { key role component text }
  causalLinks { kind from { key } to { key } }
  actionables { key status references { kind ref url } addresses { key } }
  patterns { key }`;

type Incident = {
  slug: string;
  status: string;
  version: number;
  title: string;
  summary: string;
  timeline: { key: string; at: string | null; precision: string; kind: string; text: string }[];
  causalFactors: { key: string; role: string; component: string; text: string }[];
  causalLinks: { kind: string; from: { key: string }; to: { key: string } }[];
  actionables: { key: string; status: string; references: { kind: string; ref: string; url: string | null }[]; addresses: { key: string }[] }[];
  patterns: { key: string }[];
};

type Event = { entity: string; entityKey: string; action: string; field: string | null; from: string | null; to: string | null; note: string | null; version: number | null; actor: string };

const NEW_INCIDENT = {
  slug: 'queue-worker-stall-2026',
  title: 'Queue workers stall on a dead payment gateway',
  organization: 'Example Shop',
  components: ['queue', 'payments'],
  summary: 'Workers blocked on a gateway that stopped answering.',
  narrative: 'The gateway stopped answering and every worker waited.',
  patterns: ['missing-timeout', 'resource-exhaustion'],
  source: { title: 'Internal postmortem', url: null, language: 'en' },
  keyTimes: { started: { at: '2026-03-01T10:00:00Z', precision: 'MINUTE' } },
  timeline: [
    { key: 'gateway-silent', at: '2026-03-01T10:00:00Z', precision: 'MINUTE', kind: 'TRIGGER', text: 'The gateway stops answering.' },
    { key: 'queue-backs-up', at: '2026-03-01T10:05:00Z', precision: 'MINUTE', kind: 'DETECTION', text: 'Queue depth alert fires.' },
  ],
  causalFactors: [
    { key: 'no-gateway-timeout', role: 'LATENT', component: 'payments client', text: 'Calls to the gateway have no timeout.' },
    { key: 'workers-block', role: 'CONDITION', component: 'queue', text: 'Every worker waits on the gateway.' },
  ],
  causalLinks: [{ from: 'no-gateway-timeout', to: 'workers-block', kind: 'ENABLES' }],
  actionables: [
    { key: 'add-gateway-timeout', title: 'Add a 5 s timeout to gateway calls', status: 'DONE', references: ['T9001'], addresses: ['no-gateway-timeout'] },
    { key: 'cap-workers-per-dependency', title: 'Cap workers per dependency', addresses: ['workers-block'] },
  ],
};

describe('incident-level writes for editors', () => {
  let t: TestApp;
  let prisma: PrismaService;
  let editor: Record<string, string>;
  let admin: Record<string, string>;

  const gql = <T>(query: string, variables: Record<string, unknown> = {}) => t.gql<T>(query, variables, editor);
  const history = async (slug: string): Promise<Event[]> => {
    const res = await gql<{ incident: { history: { nodes: Event[] } } }>(`query H($s: String!) { incident(slug: $s) { history(last: 100) { nodes { actor entity entityKey action field from to note version } } } }`, { s: slug });
    expect(res.errors).toBeUndefined();
    return res.data.incident.history.nodes;
  };
  const version = async (slug: string) => (await prisma.incident.findUniqueOrThrow({ where: { slug } })).version;

  beforeAll(async () => {
    t = await startTestApp();
    prisma = testPrisma(t.db.url);
    const auth = await issueTokens(t);
    editor = auth.as('editor');
    admin = auth.as('admin');
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await t.close();
  });

  it('creates a whole incident as a draft, invisible to readers until it is published', async () => {
    const res = await gql<{ createIncident: { incident: Incident } }>(`mutation C($i: CreateIncidentInput!) { createIncident(input: $i) { incident { ${INCIDENT} } } }`, { i: { ...NEW_INCIDENT, note: 'imported' } });
    expect(res.errors).toBeUndefined();
    const i = res.data.createIncident.incident;
    expect(i).toMatchObject({ slug: NEW_INCIDENT.slug, status: 'DRAFT', version: 1 });
    expect(i.timeline.map((e) => e.key)).toEqual(['gateway-silent', 'queue-backs-up']);
    expect(i.causalLinks).toEqual([{ kind: 'ENABLES', from: { key: 'no-gateway-timeout' }, to: { key: 'workers-block' } }]);
    expect(i.actionables).toEqual([
      { key: 'add-gateway-timeout', status: 'DONE', references: [{ kind: 'PHABRICATOR', ref: 'T9001', url: null }], addresses: [{ key: 'no-gateway-timeout' }] },
      { key: 'cap-workers-per-dependency', status: 'OPEN', references: [], addresses: [{ key: 'workers-block' }] },
    ]);
    expect((await t.gql(`{ incident(slug: "${NEW_INCIDENT.slug}") { title } }`)).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const published = await gql<{ updateIncident: { incident: Incident } }>(`mutation { updateIncident(input: { slug: "${NEW_INCIDENT.slug}", expectedVersion: 1, patch: { status: PUBLISHED } }) { incident { status version } } }`);
    expect(published.data.updateIncident.incident).toEqual({ status: 'PUBLISHED', version: 2 });
    const trail = await history(NEW_INCIDENT.slug);
    expect(trail.map((e) => [e.entity, e.action, e.field ?? e.entityKey])).toEqual([
      ['INCIDENT', 'CREATE', NEW_INCIDENT.slug],
      ['ACTIONABLE', 'CREATE', 'add-gateway-timeout'],
      ['ACTIONABLE', 'CREATE', 'cap-workers-per-dependency'],
      ['INCIDENT', 'UPDATE', 'status'],
    ]);
    expect(trail[0]).toMatchObject({ note: 'imported', actor: 'editor-token' });
  });

  it('refuses a taken slug and reports every invalid field of a new incident with its path', async () => {
    const taken = await gql(`mutation C($i: CreateIncidentInput!) { createIncident(input: $i) { incident { slug } } }`, { i: { ...NEW_INCIDENT } });
    expect(taken.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const bad = await gql(`mutation C($i: CreateIncidentInput!) { createIncident(input: $i) { incident { slug } } }`, {
      i: {
        ...NEW_INCIDENT,
        slug: 'Not A Slug',
        timeline: [{ key: 'e1', at: '2026-01-01T00:00:00Z', precision: 'NONE', kind: 'TRIGGER', text: 'x' }],
        causalLinks: [{ from: 'no-gateway-timeout', to: 'nowhere', kind: 'CAUSES' }],
        actionables: [{ key: 'a1', title: 'x', dueDate: '2026-12-01', references: ['what is this', 'T1', 'nor this'] }],
      },
    });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const fields = (bad.errors?.[0]?.extensions?.problems as { field: string }[]).map((p) => p.field);
    expect(fields).toEqual(['input.actionables[0].references[0]', 'input.actionables[0].references[2]']);
    const stillBad = await gql(`mutation C($i: CreateIncidentInput!) { createIncident(input: $i) { incident { slug } } }`, {
      i: { ...NEW_INCIDENT, slug: 'Not A Slug', timeline: [{ key: 'e1', at: '2026-01-01T00:00:00Z', precision: 'NONE', kind: 'TRIGGER', text: 'x' }], causalLinks: [{ from: 'no-gateway-timeout', to: 'nowhere', kind: 'CAUSES' }], actionables: [] },
    });
    expect((stillBad.errors?.[0]?.extensions?.problems as { field: string }[]).map((p) => p.field)).toEqual(['input.slug', 'input.timeline[0].precision', 'input.causalLinks[0].to']);
    // A time that is no instant, or a due date that is no day, is refused by its type, before anything else is checked.
    const notATime = await gql(`mutation C($i: CreateIncidentInput!) { createIncident(input: $i) { incident { slug } } }`, {
      i: { ...NEW_INCIDENT, slug: 'not-a-slug', timeline: [{ key: 'e1', at: 'yesterday', precision: 'MINUTE', kind: 'TRIGGER', text: 'x' }], keyTimes: { started: { at: '2026-02-30T10:00:00Z', precision: 'MINUTE' } }, actionables: [{ key: 'a1', title: 'x', dueDate: '2026-13-01' }] },
    });
    expect(notATime.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((notATime.errors?.[0]?.extensions?.problems as { field: string }[]).map((p) => p.field)).toEqual(['input.actionables[0].dueDate', 'input.keyTimes.started.at', 'input.timeline[0].at']);
    expect(await prisma.incident.count({ where: { slug: 'not-a-slug' } })).toBe(0);
  });

  it('renames a slug, keeps the old one as an alias, updates search, and lets no other incident take the old slug', async () => {
    const slug = 'apache-outbound-calls-without-timeouts-2011';
    const v = await version(slug);
    const res = await gql<{ updateIncident: { incident: Incident } }>(
      `mutation U($v: Int!) { updateIncident(input: { slug: "${slug}", expectedVersion: $v, patch: { slug: "apache-wedged-by-outbound-calls", summary: "Zebrafish wedge of the footer call." }, note: "clearer name" }) { incident { slug version summary } } }`,
      { v },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.updateIncident.incident).toMatchObject({ slug: 'apache-wedged-by-outbound-calls', version: v + 1 });
    expect(await prisma.incidentSlugAlias.findUnique({ where: { slug } })).toMatchObject({ slug });
    const found = await t.gql<{ incidents: { nodes: { slug: string }[] } }>(`{ incidents(filter: { text: "zebrafish" }) { nodes { slug } } }`);
    expect(found.data.incidents.nodes.map((n) => n.slug)).toEqual(['apache-wedged-by-outbound-calls']);

    // Reads follow the alias: a runbook's old link still finds the incident, its follow-ups and its model.
    const read = await t.gql<{ incident: { slug: string } }>(`{ incident(slug: "${slug}") { slug } }`);
    expect(read.data.incident).toEqual({ slug: 'apache-wedged-by-outbound-calls' });
    type Count = { actionables: { totalCount: number } };
    const byOld = await t.gql<Count>(`{ actionables(filter: { incident: "${slug}" }) { totalCount } }`);
    const byNew = await t.gql<Count>(`{ actionables(filter: { incident: "apache-wedged-by-outbound-calls" }) { totalCount } }`);
    expect(byOld.data.actionables.totalCount).toBeGreaterThan(0);
    expect(byOld.data.actionables.totalCount).toBe(byNew.data.actionables.totalCount);
    // This suite attaches no models: found through its alias, the incident answers that it has none.
    const run = await t.gql(`mutation { runModel(input: { incident: "${slug}" }) { run { scenarioKey } } }`);
    expect(run.errors?.[0]?.message).toMatch(/has no model attached/);

    const viaOld = await gql(`mutation { updateIncident(input: { slug: "${slug}", expectedVersion: ${v + 1}, patch: { title: "x" } }) { incident { slug } } }`);
    expect(viaOld.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', renamedTo: 'apache-wedged-by-outbound-calls' });
    const steal = await gql(`mutation { updateIncident(input: { slug: "slack-cache-metastability-2022", expectedVersion: 1, patch: { slug: "${slug}" } }) { incident { slug } } }`);
    expect(steal.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    const back = await gql<{ updateIncident: { incident: Incident } }>(`mutation { updateIncident(input: { slug: "apache-wedged-by-outbound-calls", expectedVersion: ${v + 1}, patch: { slug: "${slug}" } }) { incident { slug version } } }`);
    expect(back.data.updateIncident.incident).toEqual({ slug, version: v + 2 });
    expect(await prisma.incidentSlugAlias.findMany({ where: { incident: { slug } }, select: { slug: true } })).toEqual([{ slug: 'apache-wedged-by-outbound-calls' }]);
    const renames = (await history(slug)).filter((e) => e.field === 'slug').map((e) => [e.from, e.to]);
    expect(renames).toEqual([
      [slug, 'apache-wedged-by-outbound-calls'],
      ['apache-wedged-by-outbound-calls', slug],
    ]);
  });

  it('sets key times given as DateTimes, keeps the omitted ones, and refuses a null keyTimes', async () => {
    const slug = 'stackegg-haproxy-session-cap-2015';
    type K = { at: string; precision: string } | null;
    const read = async () => (await gql<{ incident: { started: K; detected: K; resolved: K } }>(`{ incident(slug: "${slug}") { started { at precision } detected { at precision } resolved { at precision } } }`)).data.incident;
    const before = await read();
    const v = await version(slug);
    const res = await gql<{ updateIncident: { incident: { started: K; detected: K; resolved: K } } }>(
      `mutation($v: Int!) { updateIncident(input: { slug: "${slug}", expectedVersion: $v, patch: { keyTimes: { started: { at: "2015-03-31T10:20:00+02:00", precision: MINUTE }, detected: null } } }) { incident { started { at precision } detected { at precision } resolved { at precision } } } }`,
      { v },
    );
    expect(res.errors).toBeUndefined();
    // An instant with an offset is stored as the same instant; null clears one; an omitted one stays.
    expect(res.data.updateIncident.incident).toEqual({ started: { at: '2015-03-31T08:20:00.000Z', precision: 'MINUTE' }, detected: null, resolved: before.resolved });
    const refused = await gql(`mutation($v: Int!) { updateIncident(input: { slug: "${slug}", expectedVersion: $v, patch: { keyTimes: null } }) { incident { version } } }`, { v: v + 1 });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.patch.keyTimes' });
  });

  it('answers a stale version with CONFLICT and the current values, and writes nothing', async () => {
    const slug = 'stackegg-haproxy-session-cap-2015';
    const v = await version(slug);
    await gql(`mutation { updateIncident(input: { slug: "${slug}", expectedVersion: ${v}, patch: { impact: "Site slow for everyone." } }) { incident { version } } }`);
    const before = await prisma.incident.findUniqueOrThrow({ where: { slug }, include: { timeline: true } });
    const events = await prisma.auditEvent.count();
    const res = await gql(`mutation { upsertTimelineEvent(input: { slug: "${slug}", expectedVersion: ${v}, event: { key: "late-note", kind: OBSERVATION, text: "x" } }) { incident { version } } }`);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', expectedVersion: v, currentVersion: v + 1, current: { slug, impact: 'Site slow for everyone.', version: v + 1 } });
    expect(await prisma.incident.findUniqueOrThrow({ where: { slug }, include: { timeline: true } })).toEqual(before);
    expect(await prisma.auditEvent.count()).toBe(events);
  });

  it('upserts, moves and deletes timeline events by key, auditing each change', async () => {
    const slug = NEW_INCIDENT.slug;
    let v = await version(slug);
    const upsert = (event: Record<string, unknown>, position?: number) =>
      gql<{ upsertTimelineEvent: { incident: Incident } }>(`mutation U($v: Int!, $e: TimelineEventInput!, $p: Int) { upsertTimelineEvent(input: { slug: "${slug}", expectedVersion: $v, event: $e, position: $p }) { incident { ${INCIDENT} } } }`, { v, e: event, p: position });

    const added = await upsert({ key: 'on-call-paged', at: '2026-03-01T10:07:00Z', precision: 'MINUTE', kind: 'ESCALATION', text: 'On-call paged.' });
    expect(added.data.upsertTimelineEvent.incident.timeline.map((e) => e.key)).toEqual(['gateway-silent', 'queue-backs-up', 'on-call-paged']);
    v++;
    const edited = await upsert({ key: 'queue-backs-up', at: '2026-03-01T10:04:00Z', precision: 'MINUTE', kind: 'DETECTION', text: 'Queue depth alert fires at 10:04.' }, 0);
    expect(edited.errors).toBeUndefined();
    expect(edited.data.upsertTimelineEvent.incident.timeline.map((e) => e.key)).toEqual(['queue-backs-up', 'gateway-silent', 'on-call-paged']);
    expect(edited.data.upsertTimelineEvent.incident.version).toBe(++v);
    const unchanged = await upsert({ key: 'queue-backs-up', at: '2026-03-01T10:04:00Z', precision: 'MINUTE', kind: 'DETECTION', text: 'Queue depth alert fires at 10:04.' });
    expect(unchanged.data.upsertTimelineEvent.incident.version).toBe(v);

    const badTime = await upsert({ key: 'queue-backs-up', at: '10:04', precision: 'MINUTE', kind: 'DETECTION', text: 'x' });
    expect(badTime.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.event.at' });
    const badPosition = await upsert({ key: 'new-one', kind: 'OBSERVATION', text: 'x' }, 9);
    expect(badPosition.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.position' });

    const removed = await gql<{ deleteTimelineEvent: { incident: Incident } }>(`mutation { deleteTimelineEvent(input: { slug: "${slug}", expectedVersion: ${v}, key: "on-call-paged" }) { incident { version timeline { key } } } }`);
    expect(removed.data.deleteTimelineEvent.incident).toEqual({ version: v + 1, timeline: [{ key: 'queue-backs-up' }, { key: 'gateway-silent' }] });
    const missing = await gql(`mutation { deleteTimelineEvent(input: { slug: "${slug}", expectedVersion: ${v + 1}, key: "on-call-paged" }) { incident { version } } }`);
    // `what` is the schema's type name, as every value in an error's extensions is in the API's terms.
    expect(missing.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', what: 'TimelineEvent', field: 'input.key' });

    const trail = (await history(slug)).filter((e) => e.entity === 'TIMELINE_EVENT' || e.field === 'timeline.order');
    expect(trail.map((e) => [e.entityKey, e.action, e.field])).toEqual([
      ['on-call-paged', 'CREATE', null],
      ['queue-backs-up', 'UPDATE', 'at'],
      ['queue-backs-up', 'UPDATE', 'text'],
      [slug, 'UPDATE', 'timeline.order'],
      ['on-call-paged', 'DELETE', null],
    ]);
    expect(trail[2]).toMatchObject({ from: 'Queue depth alert fires.', to: 'Queue depth alert fires at 10:04.' });
    expect(JSON.parse(trail[3]!.to!)).toEqual(['queue-backs-up', 'gateway-silent', 'on-call-paged']);
  });

  it("keeps a factor's title when an edit omits it, changes it when sent, removes it on null, and audits each change", async () => {
    const slug = 'stackegg-haproxy-session-cap-2015';
    type F = { key: string; title: string | null; text: string };
    const read = async () => (await gql<{ incident: { version: number; causalFactors: F[] } }>(`{ incident(slug: "${slug}") { version causalFactors { key title text } } }`)).data.incident;
    const before = await read();
    const f = before.causalFactors.find((x) => x.title !== null)!;
    expect(f.title).toEqual(expect.any(String));
    const upsert = (v: number, title: string) =>
      gql<{ upsertCausalFactor: { causalFactor: F; incident: { version: number } } }>(
        `mutation($v: Int!, $t: String!) { upsertCausalFactor(input: { slug: "${slug}", expectedVersion: $v, factor: { key: "${f.key}", ${title} role: CONDITION, component: null, text: $t } }) { incident { version } causalFactor { key title text } } }`,
        { v, t: `${f.text} (edited)` },
      );
    const kept = await upsert(before.version, '');
    expect(kept.errors).toBeUndefined();
    expect(kept.data.upsertCausalFactor.causalFactor.title).toBe(f.title);
    const renamed = await upsert(kept.data.upsertCausalFactor.incident.version, 'title: "A written title",');
    expect(renamed.data.upsertCausalFactor.causalFactor.title).toBe('A written title');
    const cleared = await upsert(renamed.data.upsertCausalFactor.incident.version, 'title: null,');
    expect(cleared.data.upsertCausalFactor.causalFactor.title).toBeNull();
    const titles = (await history(slug)).filter((e) => e.entityKey === f.key && e.field === 'title').map((e) => [e.from, e.to]);
    expect(titles).toEqual([[f.title, 'A written title'], ['A written title', null]]);
  });

  it('upserts factors and links, refuses to delete a factor an actionable addresses, and removes its links with it', async () => {
    const slug = NEW_INCIDENT.slug;
    let v = await version(slug);
    // A factor whose component the source does not name leaves it out: it reads back as null.
    const factor = await gql<{ upsertCausalFactor: { incident: Incident; causalFactor: { key: string; component: string | null } } }>(
      `mutation { upsertCausalFactor(input: { slug: "${slug}", expectedVersion: ${v}, factor: { key: "gateway-outage", role: TRIGGER, text: "The gateway goes silent." }, position: 0 }) { incident { version causalFactors { key } } causalFactor { key component } } }`,
    );
    expect(factor.data.upsertCausalFactor.incident.causalFactors.map((f) => f.key)).toEqual(['gateway-outage', 'no-gateway-timeout', 'workers-block']);
    expect(factor.data.upsertCausalFactor.causalFactor).toEqual({ key: 'gateway-outage', component: null });
    v++;
    const link = (op: string, to: string) =>
      gql<Record<string, { incident: Incident }>>(`mutation { ${op}(input: { slug: "${slug}", expectedVersion: ${v}, link: { from: "gateway-outage", to: "${to}", kind: CAUSES } }) { incident { version causalLinks { from { key } to { key } } } } }`);
    expect((await link('upsertCausalLink', 'workers-block')).data.upsertCausalLink.incident!.causalLinks).toHaveLength(2);
    v++;
    expect((await link('upsertCausalLink', 'workers-block')).data.upsertCausalLink.incident!.version).toBe(v);
    expect((await link('upsertCausalLink', 'nowhere')).errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.link.to' });

    const refused = await gql(`mutation { deleteCausalFactor(input: { slug: "${slug}", expectedVersion: ${v}, key: "workers-block" }) { incident { version } } }`);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', actionables: ['cap-workers-per-dependency'] });
    const item = await prisma.actionable.findFirstOrThrow({ where: { key: 'cap-workers-per-dependency' } });
    const unaddressed = await gql(`mutation { updateActionable(input: { id: "${gid('Actionable', item.id)}", expectedVersion: ${item.version}, patch: { addresses: ["gateway-outage"] } }) { actionable { version } } }`);
    expect(unaddressed.errors).toBeUndefined();
    const deleted = await gql<{ deleteCausalFactor: { incident: Incident } }>(`mutation { deleteCausalFactor(input: { slug: "${slug}", expectedVersion: ${v}, key: "workers-block" }) { incident { version causalFactors { key } causalLinks { from { key } } } } }`);
    expect(deleted.errors).toBeUndefined();
    expect(deleted.data.deleteCausalFactor.incident).toEqual({ version: v + 1, causalFactors: [{ key: 'gateway-outage' }, { key: 'no-gateway-timeout' }], causalLinks: [] });

    const trail = (await history(slug)).filter((e) => e.version === v + 1);
    expect(trail.map((e) => [e.entity, e.action, e.entityKey]).sort()).toEqual([
      ['CAUSAL_FACTOR', 'DELETE', 'workers-block'],
      ['CAUSAL_LINK', 'DELETE', 'gateway-outage>workers-block:causes'],
      ['CAUSAL_LINK', 'DELETE', 'no-gateway-timeout>workers-block:enables'],
    ]);
  });

  it('never touches actionables: tracking work done since the incident was read survives an incident edit', async () => {
    const slug = 'changeprop-feedback-loop-2016';
    const v = await version(slug);
    const item = await prisma.actionable.findFirstOrThrow({ where: { key: 'changeprop-bound-processing-concurrency' } });
    await gql(`mutation { transitionActionable(input: { id: "${gid('Actionable', item.id)}", to: IN_PROGRESS, expectedVersion: ${item.version} }) { actionable { status } } }`);
    const edit = await gql<{ updateIncident: { incident: { version: number; actionables: { key: string; status: string }[] } } }>(
      `mutation { updateIncident(input: { slug: "${slug}", expectedVersion: ${v}, patch: { title: "ChangeProp feedback loop (May 2016)" } }) { incident { version actionables { key status } } } }`,
    );
    expect(edit.errors).toBeUndefined();
    expect(edit.data.updateIncident.incident.actionables.find((a) => a.key === item.key)!.status).toBe('IN_PROGRESS');
    expect(await prisma.actionable.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: 'in_progress', version: item.version + 1 });
  });

  it('returns fresh nested data for each of several mutations in one operation', async () => {
    const slug = NEW_INCIDENT.slug;
    const v = await version(slug);
    const res = await gql<{ a: { incident: Incident }; b: { incident: Incident } }>(`mutation {
      a: upsertTimelineEvent(input: { slug: "${slug}", expectedVersion: ${v}, event: { key: "first-extra", kind: OBSERVATION, text: "one" } }) { incident { version timeline { key } } }
      b: upsertTimelineEvent(input: { slug: "${slug}", expectedVersion: ${v + 1}, event: { key: "second-extra", kind: OBSERVATION, text: "two" } }) { incident { version timeline { key } } }
    }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.a.incident.timeline.map((e) => e.key)).toContain('first-extra');
    expect(res.data.a.incident.timeline.map((e) => e.key)).not.toContain('second-extra');
    expect(res.data.b.incident.timeline.map((e) => e.key).slice(-2)).toEqual(['first-extra', 'second-extra']);
  });

  it("deletes a factor only after taking the incident's row lock, so edits of one incident queue on it instead of deadlocking", async () => {
    const slug = 'factor-lock-order-2026';
    const made = await gql<{ createIncident: { incident: { version: number } } }>(`mutation C($i: CreateIncidentInput!) { createIncident(input: $i) { incident { version } } }`, {
      i: { ...NEW_INCIDENT, slug, actionables: NEW_INCIDENT.actionables.map((a) => ({ ...a, addresses: [] })) },
    });
    const version = made.data.createIncident.incident.version;
    const other = new Client({ connectionString: t.db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM "Incident" WHERE "slug" = $1 FOR NO KEY UPDATE', [slug]);
      const deletion = gql<{ deleteCausalFactor: { incident: { causalFactors: { key: string }[] } } }>(
        `mutation { deleteCausalFactor(input: { slug: "${slug}", expectedVersion: ${version}, key: "workers-block" }) { incident { causalFactors { key } } } }`,
      );
      await untilSomeoneWaitsOnALock(other);
      // The waiting edit holds none of the incident's factors: another writer can still lock them.
      await other.query(
        `SELECT f."id" FROM "CausalFactor" f JOIN "Incident" i ON i."id" = f."incidentId" WHERE i."slug" = $1 AND f."key" = 'workers-block' FOR UPDATE NOWAIT`,
        [slug],
      );
      await other.query('ROLLBACK');
      const deleted = await deletion;
      expect(deleted.errors).toBeUndefined();
      expect(deleted.data.deleteCausalFactor.incident.causalFactors.map((f) => f.key)).toEqual(['no-gateway-timeout']);
    } finally {
      await other.end();
    }
  });

  it('lets an admin delete an incident; its audit trail stays', async () => {
    const slug = NEW_INCIDENT.slug;
    const v = await version(slug);
    const incidentId = (await prisma.incident.findUniqueOrThrow({ where: { slug } })).id;
    const before = await prisma.auditEvent.count({ where: { incidentId } });
    const res = await t.gql<{ deleteIncident: { deletedIncidentId: string } }>(`mutation { deleteIncident(input: { slug: "${slug}", expectedVersion: ${v}, note: "test record" }) { deletedIncidentId } }`, {}, admin);
    expect(res.data.deleteIncident.deletedIncidentId).toBe(gid('Incident', incidentId));
    expect(await prisma.incident.count({ where: { slug } })).toBe(0);
    expect(await prisma.actionable.count({ where: { incidentId } })).toBe(0);
    const trail = await prisma.auditEvent.findMany({ where: { incidentId }, orderBy: { id: 'asc' } });
    expect(trail).toHaveLength(before + 1);
    expect(trail[trail.length - 1]).toMatchObject({ entity: 'incident', action: 'delete', note: 'test record', actor: 'admin-token' });
  });
});

/** Resolves once another session of this database waits on a lock (bounded: fails after 30 s of polling). */
async function untilSomeoneWaitsOnALock(c: Client): Promise<void> {
  for (let polls = 0; polls < 1500; polls++) {
    const { rows } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no session ever waited on a lock');
}
