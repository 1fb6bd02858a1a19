import { isAdmin } from '../../core/caller.js'
import { presentUserBasic, type PresentOptions } from '../users/index.js'
import type { MemberJson } from './schemas.js'
import type { MemberView } from './service.js'

/**
 * Entities::Member: the user's UserBasic fields, then the membership's; EE adds the e-mail for administrators,
 * `is_using_seat` when asked for, and the membership state (never awaiting approval here).
 */
export function presentMember(view: MemberView, options: PresentOptions): MemberJson {
  const json = presentUserBasic(view.user, options) as MemberJson
  json.access_level = view.accessLevel
  json.created_at = view.row.created_at
  if (view.createdBy) json.created_by = presentUserBasic(view.createdBy, options)
  json.expires_at = view.row.expires_at
  if (isAdmin(options.viewer)) json.email = view.user.email
  if (view.usingSeat !== null) json.is_using_seat = view.usingSeat
  json.membership_state = 'active'
  return json
}
