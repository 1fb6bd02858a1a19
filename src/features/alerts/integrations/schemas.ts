import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../../http/pagination.js'
import { Nullable } from '../../../http/schema.js'

// svc's REST form of GitLab's integration mutations (GL app/graphql/mutations/alert_management/http_integration/*.rb,
// prometheus_integration/*.rb and their EE additions). `:id` is a project id or URL-encoded full path.

/** GL AlertManagement::HttpIntegration `type_identifier`, plus the external tracker (GL's Opsgenie setting). */
export const INTEGRATION_TYPES = ['http', 'prometheus', 'opsgenie'] as const
export type IntegrationType = (typeof INTEGRATION_TYPES)[number]

/** The alert fields a custom mapping may fill (GL Gitlab::AlertManagement.alert_fields; `svc_environment_name` branded). */
export const MAPPING_FIELD_NAMES = [
  'title',
  'description',
  'start_time',
  'end_time',
  'service',
  'monitoring_tool',
  'hosts',
  'severity',
  'fingerprint',
  'svc_environment_name',
  'runbook',
] as const
export type MappingFieldName = (typeof MAPPING_FIELD_NAMES)[number]

/** GL AlertManagementPayloadAlertFieldType. */
export const MAPPING_TYPES = ['string', 'array', 'datetime'] as const
export type MappingType = (typeof MAPPING_TYPES)[number]

/** One custom mapping: which alert field is read from which path of the payload, and as what. */
export interface PayloadAttributeMapping {
  field_name: MappingFieldName
  path: (string | number)[]
  type: MappingType
  label?: string
}

const writableFields = {
  name: Type.Optional(Type.String()),
  active: Type.Optional(Type.Boolean()),
  // A JSON object, or a string holding one; read by the service.
  payload_example: Type.Optional(Type.Unknown()),
  // An array of mappings, or a string holding one; read by the service.
  payload_attribute_mappings: Type.Optional(Type.Unknown()),
  create_incident: Type.Optional(Type.Boolean()),
  auto_close_incident: Type.Optional(Type.Boolean()),
  api_url: Type.Optional(Nullable(Type.String())),
}

export const UPDATE_FIELDS = Object.keys(writableFields)

export const ListIntegrationsParams = Type.Object({ id: Type.String(), ...paginationParams })

export const IntegrationParams = Type.Object({ id: Type.String(), integration_id: Type.Integer() })

export const CreateIntegrationParams = Type.Object({
  id: Type.String(),
  type: Type.Union(
    INTEGRATION_TYPES.map((t) => Type.Literal(t)),
    { default: 'http' },
  ),
  ...writableFields,
})
export type CreateIntegrationParams = Static<typeof CreateIntegrationParams>

export const UpdateIntegrationParams = Type.Object({ id: Type.String(), integration_id: Type.Integer(), ...writableFields })
export type UpdateIntegrationParams = Static<typeof UpdateIntegrationParams>

export const PayloadAttributeMappingJson = Type.Object({
  field_name: Type.String(),
  path: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  type: Type.String(),
  label: Nullable(Type.String()),
})

export const IntegrationJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  active: Type.Boolean(),
  type: Type.String(),
  url: Nullable(Type.String()),
  token: Nullable(Type.String()),
  payload_example: Type.Unknown(),
  payload_attribute_mappings: Type.Array(PayloadAttributeMappingJson),
  create_incident: Type.Boolean(),
  auto_close_incident: Type.Boolean(),
  api_url: Nullable(Type.String()),
})
export type IntegrationJson = Static<typeof IntegrationJson>

export const IntegrationListJson = Type.Array(IntegrationJson)
