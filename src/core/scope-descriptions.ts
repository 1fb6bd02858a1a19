/** What a scope lets an application do, as the consent page says it (after GL config/locales/doorkeeper.en.yml `scopes`, `scope_desc`). */
export const SCOPE_DESCRIPTIONS: Record<string, { title: string; description: string }> = {
  api: {
    title: "Access the authenticated user's API",
    description: 'Grants complete read/write access to the API, including all groups and projects.',
  },
  read_api: {
    title: "Read the authenticated user's API",
    description: 'Grants read access to the API, including all groups and projects.',
  },
  read_user: {
    title: "Read the authenticated user's personal information",
    description:
      "Grants read-only access to the authenticated user's profile through the /user API endpoint, which includes username, public email, and full name. Also grants access to read-only API endpoints under /users.",
  },
  create_runner: { title: 'Create runners', description: 'Grants create access to the runners.' },
  manage_runner: { title: 'Manage runners', description: 'Grants access to manage the runners.' },
  k8s_proxy: {
    title: 'Access the Kubernetes API through the agent',
    description: 'Grants permission to perform Kubernetes API calls using the agent for Kubernetes.',
  },
  self_rotate: { title: 'Rotate this token', description: 'Grants permission to rotate this token using the personal access token API.' },
  mcp: { title: 'Use the MCP server', description: 'Grants access to the MCP server.' },
  mcp_orbit: { title: 'Use the MCP orbit server', description: 'Grants access to the MCP orbit server.' },
  granular: { title: 'Granular access', description: 'Grants the access of the permissions the token was given.' },
  read_repository: {
    title: 'Allows read-only access to the repository',
    description: 'Grants read-only access to repositories on private projects using Git-over-HTTP or the Repository Files API.',
  },
  write_repository: {
    title: 'Allows read-write access to the repository',
    description: 'Grants read-write access to repositories on private projects using Git-over-HTTP (not using the API).',
  },
  read_registry: {
    title: 'Grants permission to read container registry images',
    description: 'Grants read-only access to container registry images on private projects.',
  },
  write_registry: {
    title: 'Grants permission to write container registry images',
    description: 'Grants write access to container registry images on private projects.',
  },
  read_virtual_registry: {
    title: 'Read virtual registries',
    description: 'Grants read-only access to container images through a dependency proxy.',
  },
  write_virtual_registry: {
    title: 'Write virtual registries',
    description: 'Grants read, write, and delete access to container images through a dependency proxy.',
  },
  read_observability: { title: 'Read observability data', description: 'Grants read-only access to observability data.' },
  write_observability: { title: 'Write observability data', description: 'Grants write access to observability data.' },
  ai_features: { title: 'Use AI features', description: 'Grants access to AI features.' },
  sudo: {
    title: 'Perform API actions as any user in the system',
    description: 'Grants permission to perform API actions as any user in the system, when authenticated as an admin user.',
  },
  admin_mode: {
    title: 'Perform API actions as an administrator',
    description: 'Grants permission to perform API actions as an administrator, when Admin Mode is enabled.',
  },
  read_service_ping: { title: 'Read Service Ping data', description: 'Grants access to download Service Ping payload through the API.' },
  openid: {
    title: 'Authenticate using OpenID Connect',
    description:
      "Grants permission to authenticate with svc using OpenID Connect. Also gives read-only access to the user's profile and group memberships.",
  },
  profile: {
    title: "Allows read-only access to the user's personal information using OpenID Connect",
    description: "Grants read-only access to the user's profile data using OpenID Connect.",
  },
  email: {
    title: "Allows read-only access to the user's primary email address using OpenID Connect",
    description: "Grants read-only access to the user's primary email address using OpenID Connect.",
  },
}

export function describeScope(scope: string): { title: string; description: string } {
  return SCOPE_DESCRIPTIONS[scope] ?? { title: scope, description: '' }
}
