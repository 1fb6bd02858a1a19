import type { FastifyRequest } from 'fastify'
import type { CredentialLookups } from '../../http/authenticate.js'
import { mergedParams } from '../../http/route.js'
import { findRequestSession, isValidCsrfToken } from './service.js'

export { PROJECT_PAGE, redirectBody, SIGN_IN_PATH, WebRouter, type WebRequest, type WebHandler } from './web-router.js'
export { SESSION_COOKIE, setReturnTo, type Session } from './service.js'
export { authenticateWithPassword, isCurrentPassword } from './password.js'
export { jobHandlers, periodicJobs } from './jobs.js'
export { setPasswordFromCommandLine, unlockAccount } from './recovery.js'

/** Rails also takes the token from the `authenticity_token` parameter (form_authenticity_param). */
function formToken(request: FastifyRequest): unknown {
  return mergedParams(request).authenticity_token
}

/**
 * How the API finds a session's user (`_svc_session`): for GET and HEAD, or for other methods only with the
 * session's CSRF token in `X-CSRF-Token` or the `authenticity_token` parameter; otherwise the request is
 * anonymous (spec/gitlab-behaviour-auth.md §2.1 item 4; GL api_guard.rb find_user_from_warden,
 * verified_request?). A session whose user can no longer sign in counts for nobody, as on the web pages.
 */
export const sessionLookups: Pick<CredentialLookups, 'findSessionUser'> = {
  async findSessionUser(db, request, settings, now) {
    if (!request.headers.cookie) return null
    const { session, user } = await findRequestSession(db, request.headers.cookie, settings, now)
    if (!session || !user) return null
    const isRead = request.method === 'GET' || request.method === 'HEAD'
    if (isRead || isValidCsrfToken(session, request.headers['x-csrf-token']) || isValidCsrfToken(session, formToken(request))) return user
    return null
  },
}
