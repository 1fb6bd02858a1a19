import type { ApiRouter } from '../../http/route.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { presentAlert, type AlertPresentOptions } from './present.js'
import { AlertJson, AlertListResponse, ListAlertsParams, ShowAlertParams, UpdateAlertParams } from './schemas.js'
import { listAlerts, showAlert, updateAlertStatus } from './service.js'
import { findProject, type LoadedProject } from '../access/index.js'

function presentOptions(externalUrl: string, loaded: LoadedProject): AlertPresentOptions {
  return { externalUrl, projectFullPath: loaded.project.full_path }
}

/** Alerts of a project: list, show, change status. */
export function registerAlertRoutes(api: ApiRouter) {
  api.get(
    '/projects/:id/alert_management/alerts',
    { params: ListAlertsParams, response: { 200: AlertListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const { alerts, total } = await listAlerts(ctx, loaded, {
        status: input.status,
        search: input.search,
        sort: input.sort,
        page,
        perPage,
      })
      setOffsetHeaders(request, reply, ctx.config.externalUrl, { rows: alerts, page, perPage, total, hasNext: page * perPage < total })
      const options = presentOptions(ctx.config.externalUrl, loaded)
      return alerts.map((alert) => presentAlert(alert, options))
    },
  )

  api.get(
    '/projects/:id/alert_management/alerts/:alert_iid',
    { params: ShowAlertParams, response: { 200: AlertJson } },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return presentAlert(await showAlert(ctx, loaded, input.alert_iid), presentOptions(ctx.config.externalUrl, loaded))
    },
  )

  api.put(
    '/projects/:id/alert_management/alerts/:alert_iid',
    { params: UpdateAlertParams, response: { 200: AlertJson } },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const alert = await updateAlertStatus(ctx, loaded, input.alert_iid, input.status)
      return presentAlert(alert, presentOptions(ctx.config.externalUrl, loaded))
    },
  )
}
