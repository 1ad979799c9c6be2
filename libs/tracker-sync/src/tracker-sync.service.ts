import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PolledQueue } from '@hindsight/jobs';
import { PrismaService } from '@hindsight/db';
import { AppError, type ActionableStatus } from '@hindsight/domain';
import { ActionableWritesService, readAuditFeed, tryReaderLock, type Actor } from '@hindsight/tracking';
import { describeIssue, RemoteIssues, remoteIssueOf, type RemoteIssue, type RemoteState } from './remote-issues';
import { TRACKER_SYNC_OPTIONS, type TrackerSyncOptions } from './tracker-sync-options';

export const TRACKER_SYNC_QUEUE = 'tracker-sync';

type SyncJob = { kind: 'pull'; actionableId: string } | { kind: 'write-back'; actionableId: string; to: string; actor: string; note: string | null };

const TRACKER_NAMES = { github: 'GitHub', jira: 'Jira' } as const;

/** What a remote state asks of a follow-up in a given status: the moves to make, in order. */
export function movesFor(status: ActionableStatus, remote: RemoteState): ActionableStatus[] {
  if (remote === 'closed') return status === 'open' ? ['in_progress', 'done'] : status === 'in_progress' ? ['done'] : [];
  return status === 'done' || status === 'wont_do' ? ['open'] : [];
}

/**
 * Two-way sync between follow-ups and the GitHub issues and Jira keys they reference.
 *
 * Into Hindsight: a tracker's webhook (signature checked by the controller) or a pull when an
 * issue is linked brings the issue's state back: closed → done (through in_progress, as the
 * workflow asks), reopened → open, each move audited with the tracker as the actor. Out of
 * Hindsight, when `writeBack` is on: a status change made here comments on the linked issues, and
 * `done` closes a linked GitHub issue or moves a linked Jira issue through its workflow's
 * transition to a done status. Changes the trackers made are never written back to them.
 *
 * New links and status changes are found by reading the audit trail (`readAuditFeed`); the calls
 * to the trackers run as pg-boss jobs (retries with backoff, leases), outside any transaction.
 */
@Injectable()
export class TrackerSyncService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TrackerSync');
  private readonly remote: RemoteIssues;
  private queue: PolledQueue<SyncJob> | null = null;

  constructor(
    private readonly prisma: PrismaService,
    private readonly writes: ActionableWritesService,
    @Inject(TRACKER_SYNC_OPTIONS) private readonly options: TrackerSyncOptions,
  ) {
    this.remote = new RemoteIssues(options);
  }

  get enabled(): boolean {
    return this.options.github !== null || this.options.jira !== null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    const queue = new PolledQueue<SyncJob>({
      connectionString: this.prisma.connectionString,
      name: TRACKER_SYNC_QUEUE,
      retryLimit: 3,
      retryDelaySeconds: 2,
      expireInSeconds: 120,
      pollMs: this.options.pollMs,
      stopTimeoutMs: this.options.timeoutMs * 3 + 1_000,
      poll: (send) => this.queueWork(send),
      run: (job) => this.run(job),
      warn: (message) => this.logger.warn(message),
    });
    await queue.start();
    this.queue = queue;
  }

  async onApplicationShutdown(): Promise<void> {
    const queue = this.queue;
    this.queue = null;
    await queue?.stop();
  }

  /** Reads new links and status changes from the audit trail now (the timer reads it too). */
  poll(): Promise<unknown> {
    return this.queue?.poll() ?? Promise.resolve(0);
  }

  /** Queues the tracker calls that the audit trail's new links and status changes need. */
  private queueWork(send: (job: SyncJob, singletonKey: string) => Promise<void>): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      if (!(await tryReaderLock(tx, 'hindsight:tracker-sync'))) return 0;
      const { events } = await readAuditFeed(tx, 'tracker-sync', 500);
      let queued = 0;
      for (const e of events) {
        if (!e.actionableId || e.actor in TRACKER_NAMES) continue;
        let job: SyncJob | null = null;
        if (e.action === 'create' || (e.action === 'update' && e.field === 'references')) job = { kind: 'pull', actionableId: e.actionableId };
        else if (e.action === 'update' && e.field === 'status' && this.options.writeBack) {
          job = { kind: 'write-back', actionableId: e.actionableId, to: String(e.to), actor: e.actor, note: e.note };
        }
        if (job) {
          await send(job, `audit-${e.id}`);
          queued += 1;
        }
      }
      return queued;
    });
  }

  /** The synced issues a follow-up references now. */
  private async linkedIssues(actionableId: string): Promise<{ issues: RemoteIssue[]; title: string; slug: string } | null> {
    const a = await this.prisma.actionable.findUnique({ where: { id: actionableId }, include: { references: true, incident: { select: { slug: true } } } });
    if (!a) return null;
    const issues = a.references.map(remoteIssueOf).filter((i): i is RemoteIssue => i !== null && this.remote.syncs(i));
    return { issues, title: a.title, slug: a.incident.slug };
  }

  private async run(job: SyncJob): Promise<void> {
    const linked = await this.linkedIssues(job.actionableId);
    if (!linked) return;
    for (const issue of linked.issues) {
      if (job.kind === 'pull') {
        // The follow-up's version before the issue is read: a change made here while the tracker
        // answers is newer than what it answered, and must not be undone by it.
        const before = await this.prisma.actionable.findUnique({ where: { id: job.actionableId }, select: { version: true } });
        if (!before) return;
        await this.apply(issue, await this.remote.state(issue), { actionableId: job.actionableId, version: before.version });
      } else {
        const note = job.note ? `: ${job.note}` : '';
        await this.remote.comment(issue, `Hindsight: follow-up “${linked.title}” (${linked.slug}) moved to ${job.to} by ${job.actor}${note}`);
        if (job.to === 'done' && (await this.remote.close(issue)) === 'no-done-transition') {
          this.logger.warn(`${describeIssue(issue)}: no available transition leads to a done status; the issue was commented on, not moved`);
        }
      }
    }
  }

  /**
   * Brings an issue's state to the follow-ups that reference it, and returns how many moved. Used
   * by the webhook endpoints (every referencing follow-up) and by pulls (`pulled`: one follow-up,
   * and only if it is still at the version it had when the issue was read; a follow-up changed
   * since keeps its newer status, which its own write-back takes to the tracker).
   */
  async apply(issue: RemoteIssue, state: RemoteState, pulled?: { actionableId: string; version: number }): Promise<number> {
    const ids = pulled ? [pulled.actionableId] : await this.referencing(issue);
    const actor: Actor = { name: issue.tracker, tokenId: null };
    const verb = state === 'closed' ? 'closed' : 'reopened';
    let moved = 0;
    for (const id of ids) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const current = await this.prisma.actionable.findUnique({ where: { id }, select: { status: true, version: true } });
        if (!current || (pulled && current.version !== pulled.version)) break;
        const moves = movesFor(current.status, state);
        if (moves.length === 0) break;
        try {
          let version = current.version;
          for (const to of moves) version = (await this.writes.transition(id, to, version, actor, `${verb} in ${TRACKER_NAMES[issue.tracker]} (${describeIssue(issue)})`)).version;
          moved += 1;
          break;
        } catch (error) {
          // Someone changed it meanwhile: read it again and decide again.
          if (!(error instanceof AppError) || error.code !== 'CONFLICT') throw error;
        }
      }
    }
    return moved;
  }

  /** Follow-ups whose references name the issue, in any of the spellings the parser accepts. */
  private async referencing(issue: RemoteIssue): Promise<string[]> {
    const rows =
      issue.tracker === 'github'
        ? await this.prisma.externalReference.findMany({
            where: {
              kind: 'github_issue',
              OR: [
                { ref: { equals: `${issue.owner}/${issue.repo}#${issue.number}`, mode: 'insensitive' } },
                { url: { endsWith: `/${issue.owner}/${issue.repo}/issues/${issue.number}`, mode: 'insensitive' } },
              ],
            },
            select: { actionableId: true },
          })
        : await this.prisma.externalReference.findMany({
            where: { kind: 'jira', OR: [{ ref: issue.key }, { ref: { endsWith: `/browse/${issue.key}` } }] },
            select: { actionableId: true },
          });
    return [...new Set(rows.map((r) => r.actionableId))];
  }
}
