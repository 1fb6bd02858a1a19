import type { User } from '../../core/caller.js'
import type { ClusterRow } from '../../db/schema.js'
import type { BasicProjectJson } from '../projects/index.js'
import { presentUserBasic, type PresentOptions } from '../users/index.js'
import type { ClusterJson } from './schemas.js'

/**
 * Entities::Cluster, or Entities::ClusterProject with `project`. svc registers only user-provided Kubernetes
 * clusters of projects: no GCP provider and no management project.
 */
export function presentCluster(
  cluster: ClusterRow,
  options: { user: User | null; present: PresentOptions; project?: BasicProjectJson },
): ClusterJson {
  const json: ClusterJson = {
    id: cluster.id,
    name: cluster.name,
    created_at: cluster.created_at,
    domain: cluster.domain,
    enabled: cluster.enabled === 1,
    managed: cluster.managed === 1,
    provider_type: 'user',
    platform_type: 'kubernetes',
    environment_scope: cluster.environment_scope,
    cluster_type: 'project_type',
    namespace_per_environment: cluster.namespace_per_environment === 1,
    user: options.user ? presentUserBasic(options.user, options.present) : null,
    platform_kubernetes: {
      api_url: cluster.api_url,
      namespace: cluster.namespace,
      authorization_type: cluster.authorization_type,
      ca_cert: cluster.ca_cert,
    },
    provider_gcp: null,
    management_project: null,
  }
  if (options.project) json.project = options.project
  return json
}
