import type { MergeRequestRow } from '../../db/schema.js'
import { csrfField, html, type Html } from '../../web/html.js'
import type { LoadedProject } from '../access/index.js'
import type { ApprovalState } from '../merge-requests/index.js'
import { mergeRequestPath } from './paths.js'

// Optional approvals on the overview (GL Free's approvals widget): who approved, and Approve or Revoke approval for those
// who may, posted to GitLab's page routes (the forms' handlers are in actions.ts).

/** "Approved by @a, @b" (or that none is needed yet), with the caller's button. */
export function approvalsSection(loaded: LoadedProject, row: MergeRequestRow, state: ApprovalState, csrfToken: string | null): Html {
  const names = state.approvals.map((approval) => `@${approval.user.username}`).join(', ')
  const button = (action: 'approve' | 'unapprove', label: string) =>
    csrfToken === null
      ? ''
      : html`<form method="post" action="${mergeRequestPath(loaded, row.iid, `/${action}`)}" class="mr-approval-form">
          ${csrfField(csrfToken)}<button type="submit" class="btn">${label}</button>
        </form>`
  return html`<section class="box mr-approvals" aria-label="Approvals">
    <p class="approval-status">${state.approvals.length > 0 ? `Approved by ${names}` : 'Approval is optional'}</p>
    ${state.userHasApproved && row.state === 'opened' ? button('unapprove', 'Revoke approval') : ''}
    ${state.userCanApprove ? button('approve', 'Approve') : ''}
  </section>`
}
