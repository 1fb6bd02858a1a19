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
:root{--space-1:4px;--space-2:8px;--space-3:16px;--space-4:24px;--border:#dcdcde;--muted:#626168;--radius:4px;
--triggered-bg:#fdd4cd;--triggered-fg:#a02e1c;--acknowledged-bg:#f5d9a8;--acknowledged-fg:#8f4700;
--resolved-bg:#c3e6cd;--resolved-fg:#24663b;--ignored-bg:#e3e3e8;--ignored-fg:#535158;--primary:#1f75cb}
.badge{display:inline-block;padding:0 var(--space-2);border-radius:1rem;font-size:.8rem;font-weight:600;line-height:1.6rem}
.status-triggered{background:var(--triggered-bg);color:var(--triggered-fg)}
.status-acknowledged{background:var(--acknowledged-bg);color:var(--acknowledged-fg)}
.status-resolved{background:var(--resolved-bg);color:var(--resolved-fg)}
.status-ignored{background:var(--ignored-bg);color:var(--ignored-fg)}
.button-row{display:flex;flex-wrap:wrap;gap:var(--space-2);margin:var(--space-3) 0}.button-row form{margin:0}
button.primary{background:var(--primary);color:#fff;border:1px solid var(--primary);border-radius:var(--radius)}
button.secondary{background:#fff;color:inherit;border:1px solid var(--border);border-radius:var(--radius)}
.breadcrumbs{color:var(--muted);font-size:.9rem;overflow-wrap:anywhere;margin-bottom:var(--space-2)}.none,.empty{color:var(--muted)}
h1,h2{overflow-wrap:anywhere}
dl.fields{display:grid;grid-template-columns:minmax(7rem,max-content) minmax(0,1fr);gap:var(--space-2) var(--space-3);margin:var(--space-3) 0}
dl.fields dt{font-weight:600}dl.fields dd{margin:0;overflow-wrap:anywhere}ul.plain{list-style:none;margin:0;padding:0}
.table-box{max-width:100%;overflow-x:auto;border:1px solid var(--border);border-radius:var(--radius)}
table.key-values{table-layout:fixed}table.key-values thead th:first-child{width:30%}
table.key-values th[scope=row]{font-weight:600;overflow-wrap:anywhere;vertical-align:top}table.key-values td{vertical-align:top}
table.key-values td{overflow-wrap:anywhere}table.key-values .value{white-space:pre-wrap}
table.key-values pre{margin:0;max-height:16rem;overflow:auto;white-space:pre;font-size:.85rem}
ol.activity{list-style:none;padding:0;margin:0}ol.activity li{padding:var(--space-2) 0;border-bottom:1px solid var(--border);overflow-wrap:anywhere}
.note-username{color:var(--muted)}
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
