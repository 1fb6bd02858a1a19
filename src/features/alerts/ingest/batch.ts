import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import type { NewAlertRow } from '../../../db/schema.js'
import { enqueueJob } from '../../../jobs/index.js'
import { noticeChange } from '../../change-notices/index.js'
import { findEnvironmentsByNames } from '../../environments/index.js'
import { CloseIncident, CreateIncident } from '../jobs.js'
import { Status } from '../present.js'
import {
  addAlertEvents,
  findOpenAlertsByFingerprints,
  insertAlertNotes,
  insertAlertRows,
  lockAlertCounter,
  reserveAlertIids,
  resolveAlertRow,
  type AlertNote,
} from '../store.js'
import type { ParsedAlert } from './parsers/index.js'

/** The integration an alert came through, as far as storing it goes. */
export interface IngestIntegration {
  id: number
  name: string
  createIncident: boolean
  autoCloseIncident: boolean
}

/** One webhook request's alerts for one project. */
export interface AlertSubmission {
  projectId: number
  integration: IngestIntegration
  alerts: ParsedAlert[]
  /**
   * generic: the request fails (400) when its alert is neither stored nor matched (a recovery with no open alert);
   * prometheus: such items are left out of the answer.
   */
  kind: 'generic' | 'prometheus'
  /** The request's context: the alerts it creates, counts or resolves are told of with it. */
  ctx: Context
}

export type SubmissionOutcome = { ok: true; alerts: { iid: number; title: string }[] } | { ok: false }

const GENERIC_SOURCE = 'Generic Alert Endpoint'

/** Where one payload alert landed, known once the batch has written its new alerts. */
interface Target {
  id: number | null
  iid: number
  title: string
  monitoringTool: string | null
  issueId: number | null
  /** Occurrences this batch adds (a new alert counts its first one). */
  added: number
  resolved: { endedAt: string; source: string; integration: IngestIntegration } | null
  created: { row: NewAlertRow; environmentName: string | null; integration: IngestIntegration } | null
  /** The context of the last request that touched it. */
  ctx: Context
}

function sourceOf(monitoringTool: string | null, integration: IngestIntegration): string {
  return monitoringTool ?? (integration.name || GENERIC_SOURCE)
}

/**
 * Matches, counts, creates and resolves the alerts of many submissions in the caller's transaction (GL
 * AlertManagement::AlertProcessing, for each alert in arrival order): a payload alert with a fingerprint matches the
 * project's alert with that fingerprint that is not resolved; a recovery resolves it, anything else counts one more
 * occurrence; no match creates an alert, except for a recovery. Repeats are counted in memory and written once.
 * A payload's own fingerprint counts repeats on every tier, as GitLab does; the contract's Premium row is about payloads
 * without one, which only Premium and Ultimate fingerprint (spec: States and transitions, Alert).
 */
export async function applySubmissions(
  trx: Db,
  submissions: readonly AlertSubmission[],
  botId: number,
  now: Date,
): Promise<SubmissionOutcome[]> {
  const at = now.toISOString()
  const outcomes: SubmissionOutcome[] = new Array(submissions.length)
  const byProject = new Map<number, number[]>()
  submissions.forEach((submission, index) => {
    const list = byProject.get(submission.projectId) ?? []
    list.push(index)
    byProject.set(submission.projectId, list)
  })
  // Projects in id order, so that two writers lock their counters in the same order.
  for (const projectId of [...byProject.keys()].sort((a, b) => a - b)) {
    const indexes = byProject.get(projectId) ?? []
    // Held until commit: the only writer matching and creating this project's alerts (on PostgreSQL, across nodes).
    await lockAlertCounter(trx, projectId)
    const fingerprints = new Set<string>()
    for (const index of indexes) for (const alert of submissions[index].alerts) if (alert.fingerprint) fingerprints.add(alert.fingerprint)
    const open = new Map<string, Target>()
    for (const row of await findOpenAlertsByFingerprints(trx, projectId, [...fingerprints])) {
      open.set(row.fingerprint as string, {
        id: row.id,
        iid: row.iid,
        title: row.title,
        monitoringTool: row.monitoring_tool,
        issueId: row.issue_id,
        added: 0,
        resolved: null,
        created: null,
        ctx: submissions[indexes[0]].ctx,
      })
    }
    const touched = new Set<Target>()
    const created: Target[] = []
    const answers = new Map<number, (Target | null)[]>()
    for (const index of indexes) {
      const submission = submissions[index]
      const landed: (Target | null)[] = []
      for (const alert of submission.alerts) {
        const match = alert.fingerprint ? open.get(alert.fingerprint) : undefined
        if (match) {
          if (alert.resolved) {
            match.resolved = {
              endedAt: alert.endedAt ?? at,
              source: sourceOf(match.monitoringTool, submission.integration),
              integration: submission.integration,
            }
            open.delete(alert.fingerprint as string)
          } else {
            match.added += 1
          }
          match.ctx = submission.ctx
          touched.add(match)
          landed.push(match)
        } else if (alert.resolved || alert.title === null) {
          landed.push(null)
        } else {
          const target: Target = {
            id: null,
            iid: 0,
            title: alert.title,
            monitoringTool: alert.monitoringTool,
            issueId: null,
            added: 1,
            resolved: null,
            created: {
              row: {
                project_id: projectId,
                iid: 0,
                integration_id: submission.integration.id,
                title: alert.title,
                description: alert.description,
                severity: alert.severity,
                status: Status.TRIGGERED,
                started_at: alert.startedAt,
                ended_at: null,
                monitoring_tool: alert.monitoringTool,
                service: alert.service,
                hosts: JSON.stringify(alert.hosts),
                fingerprint: alert.fingerprint,
                environment_id: null,
                runbook: alert.runbook,
                payload: alert.payload,
                events: 1,
                issue_id: null,
                created_at: at,
                updated_at: at,
              },
              environmentName: alert.environmentName,
              integration: submission.integration,
            },
            ctx: submission.ctx,
          }
          created.push(target)
          if (alert.fingerprint) open.set(alert.fingerprint, target)
          landed.push(target)
        }
      }
      answers.set(index, landed)
    }

    const notes: AlertNote[] = []
    if (created.length > 0) {
      const last = await reserveAlertIids(trx, projectId, created.length)
      const names = [...new Set(created.map((t) => t.created?.environmentName).filter((name): name is string => !!name))]
      const environments = new Map((await findEnvironmentsByNames(trx, projectId, names)).map((env) => [env.name, Number(env.id)]))
      const rows = created.map((target, n) => {
        const creation = target.created as NonNullable<Target['created']>
        target.iid = last - created.length + 1 + n
        const row: NewAlertRow = { ...creation.row, iid: target.iid, events: target.added }
        if (creation.environmentName) row.environment_id = environments.get(creation.environmentName) ?? null
        if (target.resolved) {
          row.status = Status.RESOLVED
          row.ended_at = target.resolved.endedAt
        }
        return row
      })
      const inserted = await insertAlertRows(trx, rows)
      created.forEach((target, n) => {
        target.id = inserted[n].id
        const creation = target.created as NonNullable<Target['created']>
        notes.push({
          projectId,
          alertId: target.id,
          authorId: botId,
          body: `logged an alert from **${sourceOf(target.monitoringTool, creation.integration)}**`,
          at,
        })
      })
    }
    const repeats = new Map<number, number>()
    for (const target of touched) {
      if (target.created) continue
      const id = target.id as number
      if (target.resolved) await resolveAlertRow(trx, id, target.added, target.resolved.endedAt, at)
      else if (target.added > 0) repeats.set(id, target.added)
    }
    await addAlertEvents(trx, repeats, at)
    for (const target of [...created, ...[...touched].filter((t) => !t.created)]) {
      if (!target.resolved) continue
      const alertId = target.id as number
      notes.push({ projectId, alertId, authorId: botId, body: `logged a recovery alert from **${target.resolved.source}**`, at })
      notes.push({ projectId, alertId, authorId: botId, body: 'changed the status to **Resolved**', at })
    }
    await insertAlertNotes(trx, notes)
    // GL AlertProcessing: a new alert is told of once saved (Alert#execute_integrations); one resolved or counted again
    // is an update of it.
    for (const target of created) {
      await noticeChange(target.ctx, trx, { kind: 'alert', action: 'create', projectId, alertId: target.id as number, at: now })
      if (target.resolved)
        await noticeChange(target.ctx, trx, { kind: 'alert', action: 'update', projectId, alertId: target.id as number, at: now })
    }
    for (const target of touched) {
      if (target.created) continue
      await noticeChange(target.ctx, trx, { kind: 'alert', action: 'update', projectId, alertId: target.id as number, at: now })
    }
    for (const target of created) {
      if (!target.resolved && target.created?.integration.createIncident)
        await enqueueJob(trx, CreateIncident, { alertId: target.id as number }, { now })
    }
    for (const target of touched) {
      if (target.created || !target.resolved) continue
      if (target.issueId !== null && target.resolved.integration.autoCloseIncident) {
        await enqueueJob(trx, CloseIncident, { alertId: target.id as number }, { now })
      }
    }

    for (const index of indexes) {
      const landed = answers.get(index) ?? []
      const kind = submissions[index].kind
      if (kind === 'generic' && landed.some((target) => target === null)) outcomes[index] = { ok: false }
      else
        outcomes[index] = {
          ok: true,
          // One entry per alert the request created, counted or resolved, in the order of its items.
          alerts: [...new Set(landed.filter((target): target is Target => target !== null))].map((target) => ({
            iid: target.iid,
            title: target.title,
          })),
        }
    }
  }
  return outcomes
}
