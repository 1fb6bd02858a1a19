import { csrfField, html, type Html } from './html.js'

/**
 * A button that asks before it acts, without script (GitLab asks in a modal): pressing it opens the question under
 * it, with the button that submits the form. `method` other than post rides in Rails' `_method` field.
 */
export function confirmedAction(options: {
  label: string
  question: Html | string
  action: string
  method: 'post' | 'put' | 'delete'
  csrfToken: string
  /** The submit button's text, when it differs from the label that opens the question. */
  confirmLabel?: string
}): Html {
  return html`<details class="confirm">
    <summary class="button danger small">${options.label}</summary>
    <div class="confirm-body">
      <p>${options.question}</p>
      <form method="post" action="${options.action}">
        ${csrfField(options.csrfToken)}
        ${options.method === 'post' ? '' : html`<input type="hidden" name="_method" value="${options.method}" />`}
        <button type="submit" class="danger small">${options.confirmLabel ?? options.label}</button>
      </form>
    </div>
  </details>`
}
