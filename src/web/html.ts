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

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1f1e24;background:#fbfafd}
header{background:#292961;color:#fff;padding:.6rem 1.5rem;display:flex;gap:1rem;align-items:center}
header a{color:#fff}header .who{margin-left:auto}
main{max-width:52rem;margin:2rem auto;padding:0 1.5rem}
h1{font-size:1.5rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password],textarea{width:100%;box-sizing:border-box;padding:.4rem;font:inherit}
.scope{font-weight:400}button,.button{padding:.4rem 1rem;font:inherit;cursor:pointer}
.flash{padding:.6rem 1rem;border-radius:4px;background:#fdf1dd;margin:1rem 0}
.flash.notice{background:#ecf4ee}code{background:#eee;padding:0 .3rem;word-break:break-all}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem;border-bottom:1px solid #ddd}
form.inline{display:inline}
`

export interface PageOptions {
  title: string
  /** Username shown in the header, with a sign-out form, when someone is signed in. */
  signedInAs?: string | null
  /** CSRF token for the header's sign-out form. */
  csrfToken?: string
  /** A message shown above the content: an alert, or a notice on success. */
  flash?: { kind: 'alert' | 'notice'; text: string } | null
}

/** The one layout every page uses. */
export function page(options: PageOptions, body: Html): string {
  const account = options.signedInAs
    ? html`<span class="who">${options.signedInAs}</span>
        <form class="inline" method="post" action="/users/sign_out">
          <input type="hidden" name="_method" value="delete" />
          <input type="hidden" name="authenticity_token" value="${options.csrfToken ?? ''}" />
          <button type="submit">Sign out</button>
        </form>`
    : html`<a class="who" href="/users/sign_in">Sign in</a>`
  const flash = options.flash ? html`<div class="flash ${options.flash.kind}" role="alert">${options.flash.text}</div>` : ''
  return html`<!DOCTYPE html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${options.csrfToken ? html`<meta name="csrf-token" content="${options.csrfToken}" />` : ''}
        <title>${options.title} · svc</title>
        <style>
          ${new Html(STYLE)}
        </style>
      </head>
      <body>
        <header><a href="/">svc</a>${account}</header>
        <main>${flash} ${body}</main>
      </body>
    </html> `.text
}

/** A hidden CSRF field for a form. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="authenticity_token" value="${token}" />`
}
