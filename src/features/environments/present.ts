import type { EnvironmentRow } from '../../db/schema.js'
import type { BasicProjectJson } from '../projects/index.js'
import type { EnvironmentJson } from './schemas.js'

/**
 * Entities::Environment. `project` is the embedded BasicProjectDetails where GitLab shows it; `lastDeployment`
 * asks for the single GET's `last_deployment` (svc records no deployments). Descriptions are not kept: null,
 * and the auto-stop setting is GitLab's default.
 */
export function presentEnvironment(
  environment: EnvironmentRow,
  options: { project?: BasicProjectJson; lastDeployment?: boolean },
): EnvironmentJson {
  const json: EnvironmentJson = {
    id: environment.id,
    name: environment.name,
    slug: environment.slug,
    external_url: environment.external_url,
    created_at: environment.created_at,
    updated_at: environment.updated_at,
    tier: environment.tier,
    state: environment.state,
    auto_stop_at: environment.auto_stop_at,
    description: null,
    auto_stop_setting: 'always',
  }
  if (options.project) json.project = options.project
  if (options.lastDeployment) json.last_deployment = null
  return json
}
