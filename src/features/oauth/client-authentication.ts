import type { Db } from '../../db/index.js'
import { findApplication, isApplicationSecret, type Application } from '../applications/index.js'
import { stringParam, type OAuthParams } from './params.js'

/** What a client presented: its client_id, and its secret when it sent one. */
export interface ClientCredentials {
  clientId: string
  secret: string | null
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they go into Basic; a value that is not stays as sent. */
function formDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '))
  } catch {
    return value
  }
}

function basicCredentials(authorization: string | undefined): ClientCredentials | null {
  const match = authorization ? /^Basic\s+(\S+)\s*$/i.exec(authorization) : null
  if (!match) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return null
  const secret = formDecode(decoded.slice(colon + 1))
  return { clientId: formDecode(decoded.slice(0, colon)), secret: secret === '' ? null : secret }
}

/**
 * The client's credentials, from HTTP Basic first, then from `client_id` and `client_secret` parameters
 * (DK Client::Credentials from_basic, from_params); null when no client_id was sent.
 */
export function readClientCredentials(authorization: string | undefined, params: OAuthParams): ClientCredentials | null {
  const basic = basicCredentials(authorization)
  if (basic) return basic
  const clientId = stringParam(params, 'client_id')
  if (clientId === null) return null
  return { clientId, secret: stringParam(params, 'client_secret') }
}

/**
 * The application the credentials prove, or null: a confidential application needs its secret, a public one is
 * named by its client_id alone but must not send a wrong secret (DK Application.by_uid_and_secret).
 */
export async function authenticateClient(db: Db, credentials: ClientCredentials | null): Promise<Application | null> {
  if (!credentials) return null
  const application = await findApplication(db, credentials.clientId)
  if (!application) return null
  if (credentials.secret === null) return application.confidential === 1 ? null : application
  return isApplicationSecret(application, credentials.secret) ? application : null
}
