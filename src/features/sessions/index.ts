import type { CredentialLookups } from '../../http/authenticate.js'

export { redirectBody, WebRouter, type WebRequest, type WebHandler } from './web-router.js'
export { SESSION_COOKIE, type Session } from './service.js'

/** How the API finds a session's user (`_svc_session`): reads only, or writes with a valid CSRF token. */
export const sessionLookups: Pick<CredentialLookups, 'findSessionUser'> = {}
