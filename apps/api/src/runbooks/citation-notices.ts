import { Injectable } from '@nestjs/common';
import { PrismaService } from '@hindsight/db';
import { RunbooksService, type CitationNotice as CitationNoticeRecord, type CitedTarget } from '@hindsight/tracking';
import { toGlobalId } from '../node/global-id';
import { TYPE_OF_KIND } from './runbooks.resolver';
import type { CitationNotice } from './runbook.types';

/** The name and closing state of a record as an editor sees them, before and after a write. */
export interface CitedState {
  name: string;
  slug?: string;
  closed?: boolean;
}

/**
 * Works out, from a record's state before and after a write, whether runbooks citing it should be
 * checked: closed (a follow-up moved to done or won't do), renamed (a new slug) or retitled. Used
 * by mutations (their payload's `notices`) and by pages (the notice shown after the form).
 */
@Injectable()
export class CitationNotices {
  constructor(
    private readonly runbooks: RunbooksService,
    private readonly prisma: PrismaService,
  ) {}

  async between(target: CitedTarget, before: CitedState | null, after: CitedState): Promise<CitationNoticeRecord[]> {
    if (!before) return [];
    const changes: CitationNoticeRecord['change'][] = [];
    if (after.closed && !before.closed) changes.push('closed');
    if (before.slug !== undefined && after.slug !== before.slug) changes.push('renamed');
    if (after.name !== before.name) changes.push('retitled');
    const out: CitationNoticeRecord[] = [];
    for (const change of changes) {
      const notice = await this.runbooks.notice(target, change, change === 'retitled' ? before.name : after.name);
      if (notice) out.push(notice);
    }
    return out;
  }

  async actionable(id: string): Promise<CitedState | null> {
    const row = await this.prisma.actionable.findUnique({ where: { id }, select: { title: true, status: true } });
    return row ? { name: row.title, closed: row.status === 'done' || row.status === 'wont_do' } : null;
  }

  async incident(slug: string): Promise<(CitedState & { id: string }) | null> {
    const row = await this.prisma.incident.findFirst({ where: { OR: [{ slug }, { slugAliases: { some: { slug } } }] }, select: { id: true, slug: true, title: true } });
    return row ? { id: row.id, name: row.title, slug: row.slug } : null;
  }

  async factor(slug: string, key: string): Promise<(CitedState & { id: string }) | null> {
    const row = await this.prisma.causalFactor.findFirst({ where: { key, incident: { OR: [{ slug }, { slugAliases: { some: { slug } } }] } }, select: { id: true, title: true, text: true } });
    return row ? { id: row.id, name: row.title ?? row.text } : null;
  }
}

export function toNoticeType(n: CitationNoticeRecord): CitationNotice {
  return { change: n.change, kind: n.target.kind, recordId: toGlobalId(TYPE_OF_KIND[n.target.kind], n.target.id), message: n.message, runbooks: n.runbooks };
}
