import { Body, Controller, Get, Inject, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, type CustomerImpactDocument, type FieldProblem, type TimePrecision } from '@hindsight/domain';
import { APP_CONFIG } from '../../config/app-config.token';
import type { AppConfig } from '../../config/app-config';
import { IncidentsService, type IncidentRecord } from '@hindsight/incidents';
import { IncidentWritesService } from '@hindsight/tracking';
import { principalOf } from '../../auth/request-principal';
import { RequireRole } from '../../auth/roles.decorator';
import type { FieldError } from '../list-query.parser';
import { PageErrorFilter } from '../page-error.filter';
import { sendPage } from '../page-response';
import { noticePath } from './runbook-citations-page.controller';
import { INCIDENT_FORM_FIELDS, incidentEditView, type IncidentFormValues } from '../views/incident-edit.view';

function valuesOf(i: IncidentRecord): IncidentFormValues {
  return {
    title: i.title,
    organization: i.organization ?? '',
    components: i.components.join(', '),
    summary: i.summary,
    impact: i.impact,
    narrative: i.narrative,
    severity: i.severity ?? '',
    nearMiss: i.nearMiss ? 'yes' : 'no',
    tags: i.tags.join(', '),
    customerImpactMinutes: i.customerImpactMinutes === null ? '' : String(i.customerImpactMinutes),
    customerImpactPrecision: i.customerImpactPrecision === 'none' ? 'minute' : i.customerImpactPrecision,
    note: '',
  };
}

/** Problems of the write, under the form field that holds the value. */
const FORM_FIELD_OF: Record<string, string> = { 'customerImpact.minutes': 'customerImpactMinutes', 'customerImpact.precision': 'customerImpactPrecision' };

/** The customer-impact fields as the write takes them; empty minutes clear it. */
function customerImpactOfForm(sent: IncidentFormValues): CustomerImpactDocument | null {
  const raw = sent.customerImpactMinutes.trim();
  if (raw === '') return null;
  if (!/^\d+$/.test(raw)) throw AppError.badField('customerImpactMinutes', `expected whole minutes, e.g. 45; got "${raw}"`);
  return { minutes: Number(raw), precision: sent.customerImpactPrecision as TimePrecision };
}

/**
 * Correcting an incident's fields on the page (editors and admins; drafts too, so an imported
 * draft can be fixed before it is published). Written by IncidentWritesService against the
 * version the form showed; a stale form gets the conflict and the stored values, nothing else.
 */
@Controller('incidents')
@UseFilters(PageErrorFilter)
export class IncidentEditPageController {
  constructor(
    private readonly incidents: IncidentsService,
    private readonly writes: IncidentWritesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(':slug/edit')
  @RequireRole('editor')
  async form(@Param('slug') slug: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const incident = await this.incidents.findBySlug(slug, { includeDrafts: true });
    const principal = (await principalOf(req))!;
    sendPage(res, 200, incidentEditView({ slug, title: incident.title, status: incident.status, version: incident.version, values: valuesOf(incident), severityLevels: this.config.severityLevels, csrfToken: principal.csrfToken ?? '', errors: [] }));
  }

  @Post(':slug/edit')
  @RequireRole('editor')
  async save(@Param('slug') slug: string, @Body() body: Record<string, unknown> | undefined, @Req() req: Request, @Res() res: Response): Promise<void> {
    const incident = await this.incidents.findBySlug(slug, { includeDrafts: true });
    const principal = (await principalOf(req))!;
    const form = body ?? {};
    const stored = valuesOf(incident);
    const sent = Object.fromEntries([...INCIDENT_FORM_FIELDS, 'note'].map((f) => [f, typeof form[f] === 'string' ? (form[f] as string).replace(/\r\n/g, '\n') : (stored as Record<string, string>)[f]])) as IncidentFormValues;
    const version = Number(form.version);
    const base = { slug, title: incident.title, status: incident.status, severityLevels: this.config.severityLevels, csrfToken: principal.csrfToken ?? '' };
    if (!Number.isInteger(version) || version < 1) {
      sendPage(res, 400, incidentEditView({ ...base, version: incident.version, values: sent, errors: [{ field: 'version', message: 'The form has no version; reload the page.' }] }));
      return;
    }
    try {
      await this.writes.update(
        slug,
        version,
        {
          title: sent.title,
          organization: sent.organization,
          components: sent.components.split(',').map((c) => c.trim()).filter(Boolean),
          summary: sent.summary,
          impact: sent.impact,
          narrative: sent.narrative,
          severity: sent.severity.trim() === '' ? null : sent.severity.trim(),
          nearMiss: sent.nearMiss === 'yes',
          tags: sent.tags.split(',').map((t) => t.trim()).filter(Boolean),
          customerImpact: customerImpactOfForm(sent),
        },
        principal,
        sent.note,
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'CONFLICT' && 'currentVersion' in error.details) {
        const details = error.details as { expectedVersion: number; currentVersion: number };
        const now = await this.incidents.findBySlug(slug, { includeDrafts: true });
        sendPage(res, 409, incidentEditView({ ...base, version: now.version, values: valuesOf(now), errors: [], conflict: { current: valuesOf(now), sent, expectedVersion: details.expectedVersion, currentVersion: details.currentVersion } }));
        return;
      }
      if (error.code === 'BAD_USER_INPUT') {
        const problems = (error.details as { problems?: FieldProblem[] }).problems ?? [{ field: 'form', reason: error.message }];
        const errors: FieldError[] = problems.map((p) => {
          const field = p.field.replace(/^patch\./, '').replace(/\[\d+\]$/, '');
          return { field: FORM_FIELD_OF[field] ?? field, message: `${p.field}: ${p.reason}` };
        });
        sendPage(res, 400, incidentEditView({ ...base, version: incident.version, values: sent, errors }));
        return;
      }
      throw error;
    }
    const next = incident.status === 'draft' ? `/incidents/${encodeURIComponent(slug)}/edit` : `/incidents/${encodeURIComponent(slug)}`;
    // A new title may make runbooks citing the incident read wrong: the next page names them.
    res.redirect(303, sent.title.trim() !== incident.title ? noticePath('incident', incident.slug, '', 'retitled', next) : next);
  }
}
