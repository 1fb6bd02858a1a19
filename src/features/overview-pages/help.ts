import { html } from '../../web/html.js'
import { renderMarkdown } from '../markdown/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'

// The help pages messages point to, at GitLab's paths (GitLab serves its documentation under /help, by the path of
// the Markdown file; `.md` is optional).

const TOPICS: Record<string, { title: string; text: string }> = {
  'topics/git/troubleshooting_git': {
    title: 'Troubleshooting Git',
    text: `# Troubleshooting Git

## Error on Git fetch: "HTTP Basic: Access Denied"

Git over HTTPS asks for a username and a password. This error means svc did not accept them:

- **Use a personal access token as the password** when your account has two-factor authentication, or when
  password sign-in for Git is turned off on this instance. Create one with the \`read_repository\` scope (to clone and
  fetch) or \`write_repository\` (to push) through the API (\`POST /api/v4/users/:id/personal_access_tokens\`) and
  give it as the password; any username works with a token.
- **Check your username and password.** Git keeps credentials in its credential helper; after a password change, clear
  the stored one (\`git credential reject\`, or your system's keychain) and try again.
- **A token from OAuth** (\`oauth2\` as the username, the access token as the password) must carry
  \`read_repository\` or \`write_repository\`.
- **Too many failed attempts** from one address block that address for a while; wait and try again.
`,
  },
}

const INDEX = `# Help

- [Troubleshooting Git](/help/topics/git/troubleshooting_git.md): what to do when Git says "HTTP Basic: Access Denied".
- The REST API is served at \`/api/v4\`; its OpenAPI description is at [/api/v4/openapi.json](/api/v4/openapi.json).
`

async function showHelp(w: WebRequest, topic: string | null) {
  const page = topic === null ? { title: 'Help', text: INDEX } : TOPICS[topic.replace(/\.md$/, '')]
  if (!page) return w.notFound()
  return w.render(
    { title: page.title, narrow: true, breadcrumbs: topic === null ? [] : [{ text: 'Help', href: '/help' }, { text: page.title }] },
    html`<div class="markdown help-page">${await renderMarkdown(w.ctx, page.text)}</div>`,
  )
}

export function registerHelpPages(web: WebRouter) {
  web.get('/help', (w) => showHelp(w, null))
  web.get('/help/*', (w) => showHelp(w, String((w.request.params as Record<string, string>)['*'])))
}
