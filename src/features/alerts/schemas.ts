import { Type } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { STATUS_NAMES } from './present.js'
import { ALERT_SORTS } from './service.js'

// Request params of the alerts REST API (svc's REST form of GraphQL Query.project.alertManagementAlerts and
// Mutation.updateAlertStatus).

const StatusName = Type.Union(STATUS_NAMES.map((name) => Type.Literal(name)))

export const ListAlertsParams = Type.Object({
  id: Type.String(),
  status: Type.Optional(StatusName),
  search: Type.Optional(Type.String()),
  sort: Type.Optional(Type.Union(ALERT_SORTS.map((name) => Type.Literal(name)))),
  ...paginationParams,
})

export const ShowAlertParams = Type.Object({
  id: Type.String(),
  alert_iid: Type.Integer(),
})

export const UpdateAlertParams = Type.Object({
  id: Type.String(),
  alert_iid: Type.Integer(),
  status: StatusName,
})

export const AlertJson = Type.Object({
  id: Type.Integer(),
  iid: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  severity: Type.String(),
  status: Type.String(),
  service: Nullable(Type.String()),
  monitoring_tool: Nullable(Type.String()),
  hosts: Type.Array(Type.String()),
  started_at: Type.String(),
  ended_at: Nullable(Type.String()),
  event_count: Type.Integer(),
  fingerprint: Nullable(Type.String()),
  environment: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() })),
  runbook: Nullable(Type.String()),
  details: Type.Unknown(),
  payload: Type.Unknown(),
  issue_iid: Nullable(Type.Integer()),
  created_at: Type.String(),
  updated_at: Type.String(),
  web_url: Type.String(),
})

export const AlertListResponse = Type.Array(AlertJson)
