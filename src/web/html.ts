import { createHash } from 'node:crypto'
import { SCRIPT } from './script.js'
import { STYLESHEET } from './style.js'

/**
 * HTML built by construction: every value interpolated into `html` is escaped unless it is itself
 * `Html` made by this module, so a page cannot carry markup it did not write.
 */
export class Html {
  constructor(readonly text: string) {}
  toString() {
    return this.text
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c])
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

/** The tagged template for markup: `html\`<p>${name}</p>\``. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let text = strings[0]
  for (let i = 0; i < values.length; i++) text += render(values[i]) + strings[i + 1]
  return new Html(text)
}

function fingerprinted(name: string, extension: string, body: string, type: string) {
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16)
  return { path: `/assets/${name}-${digest}.${extension}`, body, type }
}

/** The stylesheet and script every page links, at paths that change with their content (cached for a year). */
// The mark: a white "s" on the top bar's indigo.
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#292961"/>' +
  '<text x="16" y="23" font-family="system-ui,sans-serif" font-size="20" font-weight="700" fill="#fff" text-anchor="middle">s</text></svg>'

export const ASSETS = [
  fingerprinted('svc', 'css', STYLESHEET, 'text/css; charset=utf-8'),
  fingerprinted('svc', 'js', SCRIPT, 'text/javascript; charset=utf-8'),
  fingerprinted('favicon', 'svg', ICON, 'image/svg+xml'),
] as const

/**
 * Pages load only this instance's own stylesheet and script; images may come from elsewhere (Markdown), forms may end at an
 * OAuth client's redirect URI (as in GitLab's default policy); never others' scripts, plugins or frames.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; object-src 'none'; " +
  "base-uri 'self'; form-action 'self' https: http:; frame-ancestors 'self'"

/** An entry of a page's left sidebar; `children` show under it. */
export interface NavItem {
  label: string
  href: string
  current?: boolean
  children?: NavItem[]
}

/** The left sidebar of a group's or project's pages: its name, linking to its overview, then its sections. */
export interface Sidebar {
  title: string
  href: string
  items: NavItem[]
}

export interface Crumb {
  text: string
  href?: string
}

export interface PageOptions {
  title: string
  /** Username shown in the header, with a sign-out form, when someone is signed in. */
  signedInAs?: string | null
  /** CSRF token for the header's sign-out form. */
  csrfToken?: string
  /** An administrator browses as the signed-in user: a banner and the user menu offer to stop. */
  impersonating?: boolean
  /** The signed-in user is an administrator: the user menu links the admin area. */
  adminArea?: boolean
  /** A message shown above the content: an alert, or a notice on success. */
  flash?: { kind: 'alert' | 'notice'; text: string } | null
  sidebar?: Sidebar | null
  breadcrumbs?: Crumb[]
  /** A form or a short text reads better in a narrower column. */
  narrow?: boolean
}

function navList(items: NavItem[]): Html {
  return html`<ul>
    ${items.map(
      (item) =>
        html`<li>
          <a href="${item.href}" ${item.current ? html`aria-current="page"` : ''}>${item.label}</a>
          ${item.children && item.children.length > 0 ? navList(item.children) : ''}
        </li>`,
    )}
  </ul>`
}

/** The form that ends an impersonation and gives the administrator their own session back. */
function stopImpersonatingForm(options: PageOptions, className: string): Html {
  return html`<form method="post" action="/admin/impersonation" class="${className}">
    <input type="hidden" name="_method" value="delete" />
    <input type="hidden" name="authenticity_token" value="${options.csrfToken ?? ''}" />
    <button type="submit">Stop impersonating</button>
  </form>`
}

function topBar(options: PageOptions): Html {
  const user = options.signedInAs
  const account = user
    ? html`<details class="menu new-menu">
          <summary aria-label="Create new">+ New</summary>
          <ul class="menu-items">
            <li><a href="/projects/new">New project</a></li>
            <li><a href="/groups/new">New group</a></li>
            <li><a href="/-/snippets/new">New snippet</a></li>
          </ul>
        </details>
        <details class="menu user-menu">
          <summary aria-label="Your account"><span class="who">${user}</span></summary>
          <ul class="menu-items">
            <li class="menu-header">${options.impersonating ? 'Impersonating' : 'Signed in as'} <strong>@${user}</strong></li>
            ${options.impersonating ? html`<li>${stopImpersonatingForm(options, 'stop-impersonating')}</li>` : ''}
            <li><a href="/${user}">Your profile</a></li>
            <li><a href="/-/user_settings/profile">Edit profile</a></li>
            <li><a href="/-/user_settings/personal_access_tokens">Access tokens</a></li>
            <li><a href="/-/user_settings/applications">Applications</a></li>
            <li><a href="/-/profile/notifications">Notifications</a></li>
            ${options.adminArea ? html`<li><a href="/admin">Admin area</a></li>` : ''}
            <li>
              <form method="post" action="/users/sign_out">
                <input type="hidden" name="_method" value="delete" />
                <input type="hidden" name="authenticity_token" value="${options.csrfToken ?? ''}" />
                <button type="submit">Sign out</button>
              </form>
            </li>
          </ul>
        </details>`
    : html`<a class="who" href="/users/sign_in">Sign in</a>`
  const banner =
    user && options.impersonating
      ? html`<div class="impersonation-banner" role="status">
          <span>You are impersonating <strong>@${user}</strong>: pages show what they see, and what you do is done as them.</span>
          ${stopImpersonatingForm(options, 'stop-impersonating')}
        </div>`
      : ''
  return html`${banner}<header class="topbar">
    <a class="brand" href="/">svc</a>
    <form class="search" role="search" method="get" action="/search">
      <input type="search" name="search" aria-label="Search projects, groups and users" placeholder="Search projects, groups and users" />
    </form>
    <nav class="menus" aria-label="Your account">
      ${user ? '' : html`<a href="/explore">Explore</a>`} ${account}
    </nav>
  </header>`
}

/** The one layout every page uses: the top bar, a group's or project's sidebar, breadcrumbs, then the content. */
export function page(options: PageOptions, body: Html): string {
  const flash = options.flash ? html`<div class="flash ${options.flash.kind}" role="alert">${options.flash.text}</div>` : ''
  const sidebar = options.sidebar
    ? html`<nav class="sidebar" aria-label="${options.sidebar.title}">
        <a class="context" href="${options.sidebar.href}">${options.sidebar.title}</a>
        ${navList(options.sidebar.items)}
      </nav>`
    : ''
  const crumbs =
    options.breadcrumbs && options.breadcrumbs.length > 0
      ? html`<nav class="breadcrumbs" aria-label="Breadcrumbs">
          <ol>
            ${options.breadcrumbs.map((crumb) => html`<li>${crumb.href ? html`<a href="${crumb.href}">${crumb.text}</a>` : crumb.text}</li>`)}
          </ol>
        </nav>`
      : ''
  const [stylesheet, script, icon] = ASSETS
  return html`<!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${options.csrfToken ? html`<meta name="csrf-token" content="${options.csrfToken}" />` : ''}
        <title>${options.title} · svc</title>
        <link rel="icon" href="${icon.path}" type="image/svg+xml" />
        <link rel="stylesheet" href="${stylesheet.path}" />
        <script src="${script.path}" defer></script>
      </head>
      <body>
        <a class="skip-link" href="#content">Skip to main content</a>
        ${topBar(options)}
        <div class="layout">
          ${sidebar}
          <main id="content" class="${options.narrow ? 'narrow' : ''}">
            <div class="content">${crumbs} ${flash} ${body}</div>
          </main>
        </div>
      </body>
    </html> `.text
}

/** A hidden CSRF field for a form. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="authenticity_token" value="${token}" />`
}
