import type { FastifyInstance } from 'fastify'
import type { PlainRouteDeps } from '../../http/route.js'
import { html } from '../../web/html.js'
import { findUnsubscribeTarget, unsubscribeByReplyKey, type UnsubscribeTarget } from '../notifications/index.js'
import { redirectBody, SIGN_IN_PATH, type WebRequest, type WebRouter } from '../sessions/index.js'

// The unsubscribe link of every notification e-mail (GL SentNotificationsController#unsubscribe): the reply key is the
// secret, so whoever follows it unsubscribes the e-mail's recipient from its issue or merge request. A signed-in
// visitor, `force=true` (the List-Unsubscribe header's link and the page's button) or a POST (one-click unsubscribe,
// RFC 8058, without a CSRF token) unsubscribes at once; a signed-out visitor first sees a page asking to confirm.

const PATH = '/-/sent_notifications/:id/unsubscribe'

const UNSUBSCRIBED = 'You have been unsubscribed from this thread.'

function kindName(target: UnsubscribeTarget): string {
  return target.kind === 'issue' ? 'issue' : 'merge request'
}

/** unsubscribe.html.haml: the issue or merge request named as far as the visitor may see it, and a button to confirm. */
function confirmation(w: WebRequest, replyKey: string, target: UnsubscribeTarget) {
  const kind = kindName(target)
  const text = target.isReadable ? `${target.title} (${target.reference})` : target.reference
  const name = target.isReadable ? html`<a href="${target.url}">${text}</a>` : html`<strong>${text}</strong>`
  return w.render(
    { title: `Unsubscribe \u00b7 ${text} \u00b7 ${target.isReadable ? target.projectFullName : 'Unsubscribe'}`, narrow: true },
    html`<h1>Unsubscribe from ${kind}</h1>
      <p>Are you sure you want to unsubscribe from the ${kind}: ${name}?</p>
      <div class="button-row">
        <a class="button primary" href="/-/sent_notifications/${replyKey}/unsubscribe?force=true">Unsubscribe</a>
        <a class="button" href="${SIGN_IN_PATH}">Cancel</a>
      </div>`,
  )
}

async function unsubscribe(w: WebRequest) {
  const replyKey = String(w.params.id ?? '')
  const target = await findUnsubscribeTarget(w.ctx, replyKey)
  if (!target) return w.notFound()
  const signedIn = w.ctx.caller.user !== null
  if (!signedIn && w.params.force !== 'true') return confirmation(w, replyKey, target)
  await unsubscribeByReplyKey(w.ctx, replyKey)
  await w.flash('notice', UNSUBSCRIBED)
  if (!signedIn) return w.redirect(SIGN_IN_PATH)
  return w.redirect(target.isReadable ? new URL(target.url).pathname : '/')
}

export function registerSentNotificationPages(web: WebRouter, app: FastifyInstance, deps: PlainRouteDeps) {
  web.get(PATH, unsubscribe)
  // A mail client's one-click unsubscribe posts without a session or a CSRF token.
  app.post(PATH, async (request, reply) => {
    const ctx = await deps.context(request)
    const replyKey = String((request.params as { id?: string }).id ?? '')
    if (!(await unsubscribeByReplyKey(ctx, replyKey))) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found')
    return reply.code(302).header('location', SIGN_IN_PATH).type('text/html; charset=utf-8').send(redirectBody(SIGN_IN_PATH))
  })
}
