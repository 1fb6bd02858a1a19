import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import { ensureInternalUser } from '../users/index.js'

/** Who alerts act as: the author of alert system notes and of incidents opened from alerts (GL User.alert_bot). */
export function alertBot(db: Db, now: Date): Promise<User> {
  return ensureInternalUser(db, { username: 'alert-bot', name: 'Alert Bot', email: 'alert-bot@noreply.svc.local' }, now)
}
