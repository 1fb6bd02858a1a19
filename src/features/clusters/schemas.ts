import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { BasicProjectJson } from '../projects/index.js'
import { UserBasicJson } from '../users/index.js'

// Request params (GL lib/api/project_clusters.rb).

const RecordId = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })

/** GL Clusters::Platforms::Kubernetes.authorization_types. */
export const AUTHORIZATION_TYPES = ['unknown_authorization', 'rbac', 'abac'] as const
export type AuthorizationType = (typeof AUTHORIZATION_TYPES)[number]

export const ListClustersParams = Type.Object({
  id: Type.String(),
  ...paginationParams,
})

export const ClusterParams = Type.Object({
  id: Type.String(),
  cluster_id: RecordId,
})

export const CreateClusterParams = Type.Object({
  id: Type.String(),
  name: Type.String(),
  enabled: Type.Boolean({ default: true }),
  domain: Type.Optional(Nullable(Type.String())),
  environment_scope: Type.String({ default: '*' }),
  namespace_per_environment: Type.Boolean({ default: true }),
  managed: Type.Boolean({ default: true }),
  // Its required members are checked by the route, which names them as Grape does (`platform_kubernetes_attributes[api_url]`).
  platform_kubernetes_attributes: Type.Object({
    api_url: Type.Optional(Type.String()),
    token: Type.Optional(Type.String()),
    ca_cert: Type.Optional(Nullable(Type.String())),
    namespace: Type.Optional(Nullable(Type.String())),
    authorization_type: Type.Union(
      AUTHORIZATION_TYPES.map((type) => Type.Literal(type)),
      { default: 'rbac' },
    ),
  }),
})
export type CreateClusterParams = Static<typeof CreateClusterParams>

export const UpdateClusterParams = Type.Object({
  id: Type.String(),
  cluster_id: RecordId,
  name: Type.Optional(Type.String()),
  domain: Type.Optional(Nullable(Type.String())),
  environment_scope: Type.Optional(Type.String()),
  // GL declares a default here too, so an update that leaves it out turns it back on.
  namespace_per_environment: Type.Boolean({ default: true }),
  enabled: Type.Optional(Type.Boolean()),
  managed: Type.Optional(Type.Boolean()),
  platform_kubernetes_attributes: Type.Optional(
    Type.Object({
      api_url: Type.Optional(Type.String()),
      token: Type.Optional(Type.String()),
      ca_cert: Type.Optional(Nullable(Type.String())),
      namespace: Type.Optional(Nullable(Type.String())),
    }),
  ),
})
export type UpdateClusterParams = Static<typeof UpdateClusterParams>

// Response entities (GL lib/api/entities/cluster.rb, cluster_project.rb, platform/kubernetes.rb). The token is never shown.

export const PlatformKubernetesJson = Type.Object({
  api_url: Type.String(),
  namespace: Nullable(Type.String()),
  authorization_type: Type.String(),
  ca_cert: Nullable(Type.String()),
})

export const ClusterJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  created_at: Type.String(),
  domain: Nullable(Type.String()),
  enabled: Type.Boolean(),
  managed: Type.Boolean(),
  provider_type: Type.String(),
  platform_type: Type.String(),
  environment_scope: Type.String(),
  cluster_type: Type.String(),
  namespace_per_environment: Type.Boolean(),
  user: Nullable(UserBasicJson),
  platform_kubernetes: PlatformKubernetesJson,
  provider_gcp: Type.Null(),
  management_project: Type.Null(),
  project: Type.Optional(BasicProjectJson),
})
export type ClusterJson = Static<typeof ClusterJson>
export const ClusterListResponse = Type.Array(ClusterJson)
