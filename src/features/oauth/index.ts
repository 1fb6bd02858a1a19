import type { CredentialLookups } from '../../http/authenticate.js'

/** How the API finds OAuth access tokens (Bearer header or `access_token`). */
export const oauthLookups: Pick<CredentialLookups, 'findOAuthToken'> = {}
