import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Log } from '../../core/context.js'
import type { Config } from '../../config/index.js'
import { hashPassword } from '../../core/secrets.js'
import type { Db } from '../../db/index.js'
import { createPersonalNamespace } from '../namespaces/index.js'
import { findUserByUsername, insertUser } from './store.js'

/**
 * The administrator `root` exists from the first start. Without SVC_ROOT_PASSWORD its password is random
 * and written, readable by the owner only, to <data dir>/initial_root_password.
 */
export async function ensureRootUser(db: Db, config: Config, log: Pick<Log, 'info'>, now = new Date()) {
  const at = now.toISOString()
  let root = await findUserByUsername(db, 'root')
  if (!root) {
    let password = config.rootPassword
    if (!password) {
      password = randomBytes(24).toString('base64url')
      fs.mkdirSync(config.dataDir, { recursive: true })
      const file = path.join(config.dataDir, 'initial_root_password')
      fs.writeFileSync(file, `Password: ${password}\n`, { mode: 0o600 })
      fs.chmodSync(file, 0o600)
      log.info({ path: file }, 'root password written')
    }
    const passwordDigest = await hashPassword(password, config.passwordHashCost)
    root = await db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, {
        username: 'root',
        email: 'admin@example.com',
        name: 'Administrator',
        password_digest: passwordDigest,
        admin: 1,
        confirmed_at: at,
        created_at: at,
        updated_at: at,
      })
      await createPersonalNamespace(trx, user)
      return user
    })
  }
  return root
}
