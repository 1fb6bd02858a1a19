import { csrfField, html } from '../../web/html.js'
import { textOf, timeOf } from '../../web/list-page.js'
import { countJobsByKindAndState, findJobById, listFailedJobs, retryFailedJob, wakeJobWorkers } from '../../jobs/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { actionButton, adminPage, renderAdminPage } from './layout.js'

// The durable job queue (svc's counterpart of GitLab's Sidekiq admin, /admin/background_jobs): jobs per kind and state,
// the latest failures with their errors, and Retry for a failed job.

const STATES = ['queued', 'running', 'done', 'failed'] as const
const FAILURES_SHOWN = 50
const JOBS_PATH = '/admin/background_jobs'

async function showJobs(w: WebRequest) {
  const [counts, failures] = await Promise.all([countJobsByKindAndState(w.ctx.db), listFailedJobs(w.ctx.db, FAILURES_SHOWN)])
  const kinds = new Map<string, Record<string, number>>()
  for (const { kind, state, count } of counts) {
    const row = kinds.get(kind) ?? {}
    row[state] = count
    kinds.set(kind, row)
  }
  const csrf = csrfField(await w.csrfToken())
  const countTable =
    kinds.size === 0
      ? html`<div class="empty-state"><p>No jobs have been queued yet.</p></div>`
      : html`<div class="table-box">
          <table class="job-counts">
            <thead>
              <tr>
                <th scope="col">Kind</th>
                ${STATES.map((state) => html`<th scope="col" class="num">${state}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${[...kinds].map(
                ([kind, row]) => html`<tr data-kind="${kind}">
                  <th scope="row"><code>${kind}</code></th>
                  ${STATES.map((state) => html`<td class="num job-${state}">${row[state] ?? 0}</td>`)}
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`
  const failureList =
    failures.length === 0
      ? html`<div class="empty-state"><p>No job has failed.</p></div>`
      : html`<ul class="list failed-jobs">
          ${failures.map(
            (job) => html`<li id="job_${job.id}">
              <div class="grow">
                <span class="title"><code>${job.kind}</code> #${job.id}</span>
                <div class="meta">
                  ${job.attempts} of ${job.max_attempts} attempts${job.finished_at ? html` · failed ${timeOf(job.finished_at)}` : ''}
                </div>
                <pre class="job-error">${job.last_error ?? ''}</pre>
              </div>
              ${actionButton(`${JOBS_PATH}/${job.id}/retry`, csrf, 'Retry', 'secondary')}
            </li>`,
          )}
        </ul>`
  return renderAdminPage(
    w,
    { title: 'Background jobs', section: 'jobs', crumbs: [{ text: 'Background jobs' }] },
    html`<h1>Background jobs</h1>
      <p class="help">Jobs run in every process's worker; a failed job has used all its attempts.</p>
      <section aria-labelledby="job-counts-title">
        <h2 id="job-counts-title">Jobs by kind</h2>
        ${countTable}
      </section>
      <section aria-labelledby="failed-jobs-title">
        <h2 id="failed-jobs-title">Recent failures</h2>
        ${failureList}
      </section>`,
  )
}

async function retryJob(w: WebRequest) {
  const text = textOf(w.params.id)
  const job = /^\d{1,15}$/.test(text) ? await findJobById(w.ctx.db, Number(text)) : undefined
  if (!job) return w.notFound()
  if (await retryFailedJob(w.ctx.db, job.id, w.ctx.now())) {
    wakeJobWorkers()
    await w.flash('notice', `Job #${job.id} (${job.kind}) is queued to run again.`)
  } else {
    await w.flash('alert', `Job #${job.id} has not failed, so it was not retried.`)
  }
  return w.redirect(JOBS_PATH)
}

export function registerAdminJobPages(web: WebRouter) {
  web.get(JOBS_PATH, adminPage(showJobs))
  web.post(`${JOBS_PATH}/:id/retry`, adminPage(retryJob))
}
