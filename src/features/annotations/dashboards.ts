import type { Config } from '../../config/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { git, GitError, projectRepositoryDirectory, repositoryExists } from '../repositories/index.js'

/**
 * The dashboards GitLab defines itself (GL Gitlab::Metrics::Dashboard::ServiceSelector: the system, pod,
 * self-monitoring and cluster dashboard services' DASHBOARD_PATH).
 */
export const PREDEFINED_DASHBOARD_PATHS: readonly string[] = [
  'config/prometheus/common_metrics.yml',
  'config/prometheus/pod_metrics.yml',
  'config/prometheus/self_monitoring_default.yml',
  'config/prometheus/cluster_metrics.yml',
]

/** GL Metrics::Dashboard::CustomDashboardService::DASHBOARD_ROOT: a project's own dashboards are YAML files here. */
const CUSTOM_DASHBOARD_ROOT = '.gitlab/dashboards/'

/** Ruby's CGI.unescape: '+' is a space and %XX sequences are bytes; anything else is left as it is. */
export function cgiUnescape(value: string): string {
  const bytes: number[] = []
  const text = value.replace(/\+/g, ' ')
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '%' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16))
      i += 2
    } else bytes.push(...Buffer.from(text[i], 'utf8'))
  }
  return Buffer.from(bytes).toString('utf8')
}

/** Whether the repository's HEAD commit has a file at this path. */
async function hasFileAtHead(directory: string, filePath: string): Promise<boolean> {
  if (!(await repositoryExists(directory))) return false
  try {
    const listed = await git(['ls-tree', '-z', 'HEAD', '--', filePath], { gitDir: directory, env: { GIT_LITERAL_PATHSPECS: '1' } })
    const entry = listed.split('\0')[0] ?? ''
    return / blob [0-9a-f]+\t/.test(entry) && entry.slice(entry.indexOf('\t') + 1) === filePath
  } catch (error) {
    // An empty repository has no HEAD commit to read.
    if (error instanceof GitError) return false
    throw error
  }
}

/**
 * GL Gitlab::Metrics::Dashboard::Finder.find_raw: a predefined dashboard, or a `.gitlab/dashboards/*.yml` file on
 * the project's default branch. A blank path means the system dashboard, as GitLab's selector falls back to it.
 */
export async function dashboardExists(config: Config, project: ProjectRow, dashboardPath: string): Promise<boolean> {
  if (dashboardPath.trim() === '' || PREDEFINED_DASHBOARD_PATHS.includes(dashboardPath)) return true
  if (!dashboardPath.startsWith(CUSTOM_DASHBOARD_ROOT) || !dashboardPath.endsWith('.yml')) return false
  return hasFileAtHead(projectRepositoryDirectory(config, project), dashboardPath)
}
