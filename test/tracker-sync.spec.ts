import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { PrismaService } from '@hindsight/db';
import { signBody } from '@hindsight/notifications';
import { TrackerSyncService } from '@hindsight/tracker-sync';
import { issueTokens } from './support/api-tokens';
import { gid } from './support/global-ids';
import { startTestApp, type TestApp } from './support/test-app';
import { tableHashes } from './support/table-hash';

const GITHUB_SECRET = 'gh-hook-secret';
const JIRA_SECRET = 'jira-hook-secret';

interface Issue {
  state: 'open' | 'closed';
  comments: string[];
}

interface JiraTransition {
  id: string;
  name: string;
  to: { name: string; statusCategory: { key: string } };
}

interface JiraIssue extends Issue {
  category: string;
  /** The workflow's transitions from the issue's status (one list, whatever the status, is enough here). */
  transitions?: JiraTransition[];
  /** Transitions applied, by id, in order. */
  applied?: string[];
  /** Answer the next n transition reads with 503, to exercise the retry budget. */
  failTransitionReads?: number;
  /** Run once after the next read of the issue's status and before its answer is sent (the answer is the status read). */
  whileAnswering?: () => Promise<void>;
}

/**
 * The documented subset of GitHub's REST API (get, update and comment on an issue) and Jira's
 * (get an issue's status, add a comment, list and perform transitions), on loopback, with the
 * state a test sets.
 */
async function trackerStub(): Promise<{ url: string; github: Map<string, Issue>; jira: Map<string, JiraIssue>; close: () => Promise<void> }> {
  const github = new Map<string, Issue>();
  const jira = new Map<string, JiraIssue>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', async () => {
      const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const gh = /^\/api\/v3\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)(\/comments)?$/.exec(req.url ?? '');
      if (gh) {
        const issue = github.get(`${gh[1]}/${gh[2]}#${gh[3]}`);
        if (!issue) return send(404, { message: 'Not Found' });
        if (req.method === 'GET' && !gh[4]) return send(200, { number: Number(gh[3]), state: issue.state });
        if (req.method === 'PATCH' && !gh[4]) {
          issue.state = (JSON.parse(body) as { state: 'open' | 'closed' }).state;
          return send(200, { number: Number(gh[3]), state: issue.state });
        }
        if (req.method === 'POST' && gh[4]) {
          issue.comments.push((JSON.parse(body) as { body: string }).body);
          return send(201, { id: issue.comments.length });
        }
      }
      const jr = /^\/rest\/api\/3\/issue\/([A-Z0-9_]+-\d+)(\/comment|\/transitions)?(\?.*)?$/.exec(req.url ?? '');
      if (jr) {
        const issue = jira.get(jr[1]!);
        if (!issue) return send(404, { errorMessages: ['Issue does not exist'] });
        // GET /rest/api/3/issue/{key}/transitions: the transitions the issue can take from its status.
        if (req.method === 'GET' && jr[2] === '/transitions') {
          if ((issue.failTransitionReads ?? 0) > 0) {
            issue.failTransitionReads! -= 1;
            return send(503, { errorMessages: ['Service unavailable'] });
          }
          return send(200, { expand: 'transitions', transitions: (issue.transitions ?? []).map((t) => ({ ...t, hasScreen: false, isAvailable: true })) });
        }
        // POST /rest/api/3/issue/{key}/transitions: 204 on success, 400 for a transition the issue cannot take.
        if (req.method === 'POST' && jr[2] === '/transitions') {
          const id = (JSON.parse(body) as { transition?: { id?: string } }).transition?.id;
          const t = (issue.transitions ?? []).find((x) => x.id === id);
          if (!t) return send(400, { errorMessages: [`Transition id '${id}' is not valid for this issue.`] });
          issue.category = t.to.statusCategory.key;
          (issue.applied ??= []).push(t.id);
          return res.writeHead(204).end();
        }
        if (req.method === 'GET' && !jr[2]) {
          const category = issue.category;
          const meanwhile = issue.whileAnswering;
          issue.whileAnswering = undefined;
          await meanwhile?.();
          return send(200, { key: jr[1], fields: { status: { name: category, statusCategory: { key: category } } } });
        }
        if (req.method === 'POST' && jr[2] === '/comment') {
          const doc = JSON.parse(body) as { body: { content: { content: { text: string }[] }[] } };
          issue.comments.push(doc.body.content[0]!.content[0]!.text);
          return send(201, { id: String(issue.comments.length) });
        }
      }
      send(404, { message: `no route ${req.method} ${req.url}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, github, jira, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('two-way sync of follow-ups with GitHub issues and Jira', () => {
  let t: TestApp;
  let stub: Awaited<ReturnType<typeof trackerStub>>;
  let editor: Record<string, string>;
  let sync: TrackerSyncService;
  let prisma: PrismaService;

  const status = async (key: string) => (await prisma.actionable.findFirstOrThrow({ where: { key } })).status;
  const until = async (done: () => Promise<boolean> | boolean) => {
    while (!(await done())) {
      await sync.poll();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** Polls the audit trail, then waits until every tracker-sync job queued so far has run. */
  const settled = async () => {
    await sync.poll();
    for (;;) {
      const [row] = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pgboss.job WHERE name = 'tracker-sync' AND state IN ('created', 'retry', 'active')`;
      if (row!.n === 0n) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const link = async (key: string, references: string[]) => {
    const a = await prisma.actionable.findFirstOrThrow({ where: { key } });
    const res = await t.gql(
      `mutation U($i: UpdateActionableInput!) { updateActionable(input: $i) { actionable { version } } }`,
      { i: { id: gid('Actionable', a.id), expectedVersion: a.version, patch: { references } } },
      editor,
    );
    expect(res.errors).toBeUndefined();
  };
  const hook = (path: string, header: string, secret: string, payload: unknown, extra: Record<string, string> = {}) => {
    const body = JSON.stringify(payload);
    return request(t.app.getHttpServer()).post(path).set('content-type', 'application/json').set(header, signBody(secret, body)).set(extra).send(body);
  };

  beforeAll(async () => {
    stub = await trackerStub();
    t = await startTestApp({
      env: {
        GITHUB_API_URL: `${stub.url}/api/v3`,
        GITHUB_TOKEN: 'test-token',
        GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
        JIRA_URL: stub.url,
        JIRA_EMAIL: 'sync@example.com',
        JIRA_API_TOKEN: 'test-jira-token',
        JIRA_WEBHOOK_SECRET: JIRA_SECRET,
        TRACKER_SYNC_WRITE_BACK: 'true',
        TRACKER_SYNC_POLL_MS: '3600000',
      },
    });
    editor = (await issueTokens(t)).as('editor');
    sync = t.app.get(TrackerSyncService);
    prisma = t.app.get(PrismaService);
    await sync.poll();
  });
  afterAll(async () => {
    await t.close();
    await stub.close();
  });

  it('brings a linked GitHub issue that is already closed back as done, audited with the tracker', async () => {
    stub.github.set('acme/cache#7', { state: 'closed', comments: [] });
    await link('measure-keep-alive-effect-via-client-timings', ['acme/cache#7']);
    await until(async () => (await status('measure-keep-alive-effect-via-client-timings')) === 'done');
    const a = await prisma.actionable.findFirstOrThrow({ where: { key: 'measure-keep-alive-effect-via-client-timings' } });
    const events = await prisma.auditEvent.findMany({ where: { actionableId: a.id, field: 'status' }, orderBy: { id: 'asc' } });
    expect(events.map((e) => [e.actor, e.from, e.to, e.note])).toEqual([
      ['github', 'open', 'in_progress', 'closed in GitHub (acme/cache#7)'],
      ['github', 'in_progress', 'done', 'closed in GitHub (acme/cache#7)'],
    ]);
    expect(a.closedBy).toBe('github');
    // A change the tracker made is not written back to it.
    await sync.poll();
    expect(stub.github.get('acme/cache#7')!.comments).toEqual([]);
  });

  it('reopens on a signed GitHub webhook, and refuses an unsigned or wrongly signed one without writing', async () => {
    const payload = { action: 'reopened', issue: { number: 7 }, repository: { name: 'cache', owner: { login: 'acme' } } };
    const before = await tableHashes(t.db.url);
    const unsigned = await request(t.app.getHttpServer()).post('/webhooks/github').set('x-github-event', 'issues').send(payload);
    expect(unsigned.status).toBe(401);
    const forged = await hook('/webhooks/github', 'x-hub-signature-256', 'not-the-secret', payload, { 'x-github-event': 'issues' });
    expect(forged.status).toBe(401);
    expect(await tableHashes(t.db.url)).toEqual(before);
    const res = await hook('/webhooks/github', 'x-hub-signature-256', GITHUB_SECRET, payload, { 'x-github-event': 'issues' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ moved: 1 });
    expect(await status('measure-keep-alive-effect-via-client-timings')).toBe('open');
  });

  it('comments on and closes the linked GitHub issue when a follow-up is done here', async () => {
    stub.github.set('acme/lb#12', { state: 'open', comments: [] });
    await link('watch-datacenter-performance', ['https://github.com/acme/lb/issues/12']);
    await until(() => true);
    const a = await prisma.actionable.findFirstOrThrow({ where: { key: 'watch-datacenter-performance' } });
    for (const [to, v] of [['IN_PROGRESS', a.version], ['DONE', a.version + 1]] as const) {
      const res = await t.gql(`mutation { transitionActionable(input: { id: "${gid('Actionable', a.id)}", to: ${to}, expectedVersion: ${v}, note: "dashboards in place" }) { actionable { version } } }`, {}, editor);
      expect(res.errors).toBeUndefined();
    }
    await until(() => stub.github.get('acme/lb#12')!.state === 'closed');
    expect(stub.github.get('acme/lb#12')!.comments.some((c) => c.includes('moved to done by editor-token: dashboards in place'))).toBe(true);
  });

  it('follows a Jira issue through a signed webhook and comments on it when the follow-up changes here', async () => {
    stub.jira.set('OPS-31', { state: 'open', category: 'indeterminate', comments: [] });
    await link('internal-outage-discussion', ['OPS-31']);
    await until(() => true);
    const payload = { webhookEvent: 'jira:issue_updated', issue: { key: 'OPS-31', fields: { status: { statusCategory: { key: 'done' } } } } };
    expect((await hook('/webhooks/jira', 'x-hub-signature', 'wrong', payload)).status).toBe(401);
    const res = await hook('/webhooks/jira', 'x-hub-signature', JIRA_SECRET, payload);
    expect(res.body).toEqual({ moved: 1 });
    expect(await status('internal-outage-discussion')).toBe('done');
    const a = await prisma.actionable.findFirstOrThrow({ where: { key: 'internal-outage-discussion' } });
    const reopened = await t.gql(`mutation { transitionActionable(input: { id: "${gid('Actionable', a.id)}", to: OPEN, expectedVersion: ${a.version}, note: "not finished after all" }) { actionable { version } } }`, {}, editor);
    expect(reopened.errors).toBeUndefined();
    await until(() => stub.jira.get('OPS-31')!.comments.length > 0);
    expect(stub.jira.get('OPS-31')!.comments[0]).toContain('moved to open by editor-token: not finished after all');
  });

  const jiraWorkflow: JiraTransition[] = [
    { id: '11', name: 'Start progress', to: { name: 'In Progress', statusCategory: { key: 'indeterminate' } } },
    { id: '21', name: 'Resolve', to: { name: 'Resolved', statusCategory: { key: 'done' } } },
    { id: '31', name: 'Back to backlog', to: { name: 'Backlog', statusCategory: { key: 'new' } } },
  ];
  const finish = async (key: string, note: string) => {
    const a = await prisma.actionable.findFirstOrThrow({ where: { key } });
    for (const [to, v] of [['IN_PROGRESS', a.version], ['DONE', a.version + 1]] as const) {
      const res = await t.gql(`mutation { transitionActionable(input: { id: "${gid('Actionable', a.id)}", to: ${to}, expectedVersion: ${v}, note: "${note}" }) { actionable { version } } }`, {}, editor);
      expect(res.errors).toBeUndefined();
    }
  };

  it('moves a linked Jira issue through the transition whose target status is done when the follow-up is done here', async () => {
    // The first read of the transitions fails with 503: the call is retried under the budget.
    stub.jira.set('OPS-40', { state: 'open', category: 'new', comments: [], transitions: jiraWorkflow, failTransitionReads: 1 });
    await link('fix-mcrib-control-loop', ['OPS-40']);
    await settled();
    await finish('fix-mcrib-control-loop', 'routes reviewed');
    await until(() => stub.jira.get('OPS-40')!.category === 'done');
    const issue = stub.jira.get('OPS-40')!;
    expect(issue.applied).toEqual(['21']);
    expect(issue.failTransitionReads).toBe(0);
    expect(issue.comments.some((c) => c.includes('moved to done by editor-token: routes reviewed'))).toBe(true);
    // The follow-up stays done: the transition made there is not brought back as another move.
    expect(await status('fix-mcrib-control-loop')).toBe('done');
  });

  it('does not undo a change made here while a pull waited for the tracker', async () => {
    // The pull reads the issue as still open; before that answer arrives, the follow-up is
    // finished here. The older answer must not reopen it; the write-back then closes the issue.
    stub.jira.set('OPS-41', { state: 'open', category: 'new', comments: [], transitions: jiraWorkflow, whileAnswering: () => finish('change-consul-rollout-procedure', 'checked') });
    await link('change-consul-rollout-procedure', ['OPS-41']);
    await settled();
    expect(stub.jira.get('OPS-41')!.whileAnswering).toBeUndefined();
    expect(await status('change-consul-rollout-procedure')).toBe('done');
    await until(() => stub.jira.get('OPS-41')!.category === 'done');
    expect(await status('change-consul-rollout-procedure')).toBe('done');
  });

  it('only comments on a Jira issue whose workflow offers no transition to a done status', async () => {
    stub.jira.set('OPS-41', { state: 'open', category: 'indeterminate', comments: [], transitions: jiraWorkflow.filter((x) => x.to.statusCategory.key !== 'done') });
    await link('audit-scatter-queries-behind-caches', ['OPS-41']);
    await settled();
    await finish('audit-scatter-queries-behind-caches', 'done on our side');
    await until(() => stub.jira.get('OPS-41')!.comments.some((c) => c.includes('moved to done')));
    // Give the write-back job its chance to transition, then check it did not.
    await settled();
    const issue = stub.jira.get('OPS-41')!;
    expect(issue.applied).toBeUndefined();
    expect(issue.category).toBe('indeterminate');
  });
});
