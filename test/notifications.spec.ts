import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaService } from '@hindsight/db';
import { NotificationsService, verifyBody, type Notice } from '@hindsight/notifications';
import { issueTokens } from './support/api-tokens';
import { gid } from './support/global-ids';
import { startTestApp, type TestApp } from './support/test-app';

const SECRET = 'test-webhook-secret';
const STACKEGG = 'stackegg-haproxy-session-cap-2015';

interface Received {
  notice: Notice;
  delivery: string;
  signed: boolean;
}

/** A webhook receiver on loopback that records what it is sent and can refuse the first tries. */
async function receiver(): Promise<{ url: string; received: Received[]; failNext: (n: number) => void; close: () => Promise<void> }> {
  const received: Received[] = [];
  let failures = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (failures > 0) {
        failures -= 1;
        res.writeHead(503).end();
        return;
      }
      received.push({ notice: JSON.parse(body) as Notice, delivery: String(req.headers['x-hindsight-delivery']), signed: verifyBody(SECRET, body, req.headers['x-hindsight-signature-256'] as string | undefined) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, failNext: (n) => (failures = n), close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('outgoing webhooks on follow-up changes', () => {
  let t: TestApp;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let editor: Record<string, string>;
  let notifications: NotificationsService;

  /** Polls the trail now (rather than waiting for the timer) until `done` holds. */
  const until = async (done: () => boolean) => {
    while (!done()) {
      await notifications.poll();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const transition = async (id: string, to: string, v: number, note?: string) => {
    const res = await t.gql(
      `mutation T($i: TransitionActionableInput!) { transitionActionable(input: $i) { actionable { version } } }`,
      { i: { id: gid('Actionable', id), to, expectedVersion: v, note } },
      editor,
    );
    expect(res.errors).toBeUndefined();
  };

  beforeAll(async () => {
    hook = await receiver();
    t = await startTestApp({ env: { NOTIFY_WEBHOOK_URLS: hook.url, NOTIFY_WEBHOOK_SECRET: SECRET, NOTIFY_POLL_MS: '3600000', PUBLIC_URL: 'https://hindsight.example.org' } });
    editor = (await issueTokens(t)).as('editor');
    notifications = t.app.get(NotificationsService);
    // The first read starts the cursor: nothing from before is announced, not even old overdue items.
    await notifications.poll();
  });
  afterAll(async () => {
    await t.close();
    await hook.close();
  });

  it('announces a status change, signed, with who, what and a link, and nothing from before it was turned on', async () => {
    const prisma = t.app.get(PrismaService);
    const item = await prisma.actionable.findFirstOrThrow({ where: { key: 'measure-keep-alive-effect-via-client-timings' } });
    await transition(item.id, 'IN_PROGRESS', item.version);
    await until(() => hook.received.length >= 1);
    expect(hook.received).toHaveLength(1);
    const [first] = hook.received;
    expect(first!.signed).toBe(true);
    expect(first!.delivery).toBe(first!.notice.id);
    expect(first!.notice).toMatchObject({
      type: 'actionable.updated',
      actor: 'editor-token',
      actionable: { id: item.id, key: item.key, incident: STACKEGG, url: `https://hindsight.example.org/incidents/${STACKEGG}#actionable-${item.key}` },
      change: { field: 'status', from: 'open', to: 'in_progress' },
    });
  });

  it('announces a follow-up once when it becomes overdue, again only for a new due date', async () => {
    const prisma = t.app.get(PrismaService);
    const item = await prisma.actionable.findFirstOrThrow({ where: { key: 'watch-datacenter-performance' } });
    const res = await t.gql(
      `mutation U($i: UpdateActionableInput!) { updateActionable(input: $i) { actionable { version } } }`,
      { i: { id: gid('Actionable', item.id), expectedVersion: item.version, patch: { dueDate: '2020-06-01' } } },
      editor,
    );
    expect(res.errors).toBeUndefined();
    const overdue = () => hook.received.filter((r) => r.notice.type === 'actionable.overdue' && r.notice.actionable.key === item.key);
    await until(() => overdue().length >= 1);
    await notifications.poll();
    await notifications.poll();
    expect(overdue().map((r) => r.notice.change?.to)).toEqual(['2020-06-01']);
    await until(() => hook.received.some((r) => r.notice.type === 'actionable.updated' && r.notice.change?.field === 'dueDate'));
  });

  it('tries a refused delivery again with the same delivery id', async () => {
    const prisma = t.app.get(PrismaService);
    const item = await prisma.actionable.findFirstOrThrow({ where: { key: 'internal-outage-discussion' } });
    const before = hook.received.length;
    hook.failNext(1);
    await transition(item.id, 'DONE', item.version, 'discussed at the review');
    await until(() => hook.received.length > before);
    const delivered = hook.received.slice(before);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.notice).toMatchObject({ type: 'actionable.updated', change: { field: 'status', to: 'done', note: 'discussed at the review' } });
  });
});
