import { describeScope } from '../core/scope-descriptions.js'
import { html, type Html } from './html.js'

// The parts the personal and the project access tokens pages share; each page keeps its own words (GitLab's differ).

/** A token form's scope checkboxes, each with GitLab's description of the scope; `model` names the fields. */
export function scopeCheckboxes(options: {
  model: string
  scopes: readonly string[]
  checked: readonly string[]
  className: string
}): Html[] {
  return options.scopes.map((scope) => {
    const id = `${options.model}_scopes_${scope}`
    return html`<div class="${options.className}">
      <input type="checkbox" id="${id}" name="${options.model}[scopes][]" value="${scope}" ${options.checked.includes(scope) ? html`checked` : ''} aria-describedby="${id}_help" />
      <label for="${id}" class="inline-label"><code>${scope}</code></label>
      <p class="help" id="${id}_help">${describeScope(scope).description}</p>
    </div>`
  })
}

/** A new token's value, shown once: a read-only field with a Copy button, and the warning that it will not be shown again. */
export function newTokenField(id: string, value: string): Html {
  return html`<div class="copy-field">
      <input type="text" id="${id}" value="${value}" readonly aria-labelledby="created-token-heading" aria-describedby="${id}-help" />
      <button type="button" data-copy="${id}">Copy</button>
    </div>
    <p class="help" id="${id}-help">Make sure you save it - you won't be able to access it again.</p>`
}

/** The active tokens: the heading, which counts them, then their table. */
export function activeTokensSection(heading: string, table: Html): Html {
  return html`<section aria-labelledby="active-tokens-heading">
    <h2 id="active-tokens-heading">${heading}</h2>
    ${table}
  </section>`
}

/** The head of an active tokens table: GitLab's columns, the page's own after them (`Role`), then the actions column. */
export function tokensTableHead(ownColumns: readonly string[], actionsLabel: string): Html {
  const columns = ['Token name', 'Scopes', 'Created', 'Last used', 'Expires', ...ownColumns]
  return html`<thead>
    <tr>
      ${columns.map((column) => html`<th scope="col">${column}</th>`)}
      <th scope="col"><span class="visually-hidden">${actionsLabel}</span></th>
    </tr>
  </thead>`
}

/** A token's scopes as its row lists them: "api, read_repository". */
export function scopesText(scopesJson: string): string {
  return (JSON.parse(scopesJson) as string[]).join(', ')
}

/** A token's date in its row, or Never when it has none. */
export function dateOrNever(iso: string | null, show: (iso: string) => Html): Html {
  return iso ? show(iso) : html`<span class="muted">Never</span>`
}
