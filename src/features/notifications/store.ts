import { sql, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type {
  AlertRow,
  Database,
  IssueRow,
  MergeRequestRow,
  NewSentNotificationRow,
  NoteRow,
  SentNotificationRow,
  SubscribableType,
  UserRow,
} from '../../db/schema.js'

// Owns issue and merge request subscriptions and the record of sent notifications; reads the rows an e-mail tells of.

/** GL NotificationSetting levels the queries name: Global defers to the level above; Watch and Custom hear unasked. */
const GLOBAL_LEVEL = 3
const WATCH_LEVEL = 2
const CUSTOM_LEVEL = 5

export function findIssueRow(db: Db, id: number): Promise<IssueRow | undefined> {
  return db.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findMergeRequestRow(db: Db, id: number): Promise<MergeRequestRow | undefined> {
  return db.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findNoteRow(db: Db, id: number): Promise<NoteRow | undefined> {
  return db.selectFrom('notes').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findAlertRow(db: Db, id: number): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findUserRow(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findUserRows(db: Db, ids: readonly number[]): Promise<UserRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db
    .selectFrom('users')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute()
}

/** The users a merge request is assigned to, or asks to review. */
export async function findMergeRequestPeopleIds(db: Db, role: 'assignees' | 'reviewers', mergeRequestId: number): Promise<number[]> {
  const rows = await db
    .selectFrom(role === 'assignees' ? 'merge_request_assignees' : 'merge_request_reviewers')
    .select('user_id')
    .where('merge_request_id', '=', mergeRequestId)
    .orderBy('user_id')
    .execute()
  return rows.map((row) => Number(row.user_id))
}

/** The authors and texts of every note on an issue or a merge request, oldest first. */
export function findNotesOf(db: Db, type: SubscribableType, id: number) {
  return db
    .selectFrom('notes')
    .select(['id', 'author_id', 'body', 'system'])
    .where(type === 'Issue' ? 'issue_id' : 'merge_request_id', '=', id)
    .orderBy('id')
    .execute()
}

/** The notes of a thread written before `noteId`, oldest first. */
export async function findEarlierNoteIds(db: Db, discussionId: string, noteId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('notes')
    .select('id')
    .where('discussion_id', '=', discussionId)
    .where('id', '<', noteId)
    .orderBy('id')
    .execute()
  return rows.map((row) => Number(row.id))
}

/** The users and the direct members of the groups (those that allow group mentions) that lowercased names name. */
export async function findMentionedUserIds(db: Db, names: readonly string[]): Promise<number[]> {
  if (names.length === 0) return []
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(username)`, 'in', names)
    .union(
      db
        .selectFrom('members')
        .innerJoin('namespaces', 'namespaces.id', 'members.namespace_id')
        .select('members.user_id as id')
        .where('namespaces.kind', '=', 'group')
        .where('namespaces.mentions_disabled', '=', 0)
        .where(sql`lower(namespaces.full_path)`, 'in', names),
    )
    .execute()
  return rows.map((row) => Number(row.id))
}

/** Who subscribed to the issue or merge request (GL Subscribable#subscribers). */
export async function findSubscriberIds(db: Db, type: SubscribableType, id: number): Promise<number[]> {
  const rows = await db
    .selectFrom('subscriptions')
    .select('user_id')
    .where('subscribable_type', '=', type)
    .where('subscribable_id', '=', id)
    .where('subscribed', '=', 1)
    .orderBy('id')
    .execute()
  return rows.map((row) => Number(row.user_id))
}

/** Who subscribed to a label of the issue or merge request, in this project or everywhere the label is. */
export async function findLabelSubscriberIds(db: Db, type: SubscribableType, id: number, projectId: number): Promise<number[]> {
  const labelIds =
    type === 'Issue'
      ? db.selectFrom('issue_labels').select('label_id').where('issue_id', '=', id)
      : db.selectFrom('merge_request_labels').select('label_id').where('merge_request_id', '=', id)
  const rows = await db
    .selectFrom('label_subscriptions')
    .select('user_id')
    .distinct()
    .where('label_id', 'in', labelIds)
    .where((eb) => eb.or([eb('project_id', 'is', null), eb('project_id', '=', projectId)]))
    .execute()
  return rows.map((row) => Number(row.user_id))
}

/** Where the settings that apply to a project come from: the project and the groups above it, deepest last. */
export interface SettingSources {
  /** Null for a group's own notifications. */
  projectId: number | null
  groupIds: readonly number[]
}

export interface RecipientFactsQuery extends SettingSources {
  /** Users the event names (participants, mentions, subscribers…). */
  userIds: readonly number[]
  /** Also everyone whose setting for the project is Watch or Custom and who has a setting or membership there. */
  withLevelled: boolean
  /** The issue or merge request whose unsubscriptions count. */
  subscribable: { type: SubscribableType; id: number } | null
  /** Memberships that expired before this day give no role. */
  today: string
}

/** What the rules and the e-mails need of a user: whom to write to, and who they are to the access policies. */
export const RECIPIENT_COLUMNS = ['id', 'username', 'name', 'email', 'notification_email', 'state', 'bot', 'admin', 'external'] as const
export type RecipientUser = Pick<UserRow, (typeof RECIPIENT_COLUMNS)[number]>

export type RecipientFactsRow = RecipientUser & {
  setting_level: number | null
  setting_events: string | null
  project_level: number | null
  group_level: number | null
  unsubscribed: number
}

type UsersAlias = ExpressionBuilder<Database & { u: Database['users'] }, 'u'>

/**
 * The setting that applies to a user (GL NotificationRecipient#find_notification_setting): the project's unless it is
 * Global, else the closest group's that is not Global, else the user's global setting.
 */
function effectiveSettingId(eb: UsersAlias, sources: SettingSources) {
  const projectSetting = eb
    .selectFrom('notification_settings as p')
    .select('p.id')
    .whereRef('p.user_id', '=', 'u.id')
    .where('p.source_type', '=', 'Project')
    .where('p.source_id', '=', sources.projectId ?? -1)
    .where('p.level', '<>', GLOBAL_LEVEL)
    .limit(1)
  const globalSetting = eb
    .selectFrom('notification_settings as o')
    .select('o.id')
    .whereRef('o.user_id', '=', 'u.id')
    .where('o.source_type', 'is', null)
    .where('o.source_id', 'is', null)
    .limit(1)
  if (sources.groupIds.length === 0) return eb.fn.coalesce(projectSetting, globalSetting)
  const groupSetting = eb
    .selectFrom('notification_settings as g')
    .innerJoin('namespaces as gn', 'gn.id', 'g.source_id')
    .select('g.id')
    .whereRef('g.user_id', '=', 'u.id')
    .where('g.source_type', '=', 'Namespace')
    .where('g.source_id', 'in', sources.groupIds)
    .where('g.level', '<>', GLOBAL_LEVEL)
    .orderBy(sql`length(gn.traversal_ids)`, 'desc')
    .limit(1)
  return eb.fn.coalesce(projectSetting, groupSetting, globalSetting)
}

/**
 * The candidates' rows with what decides whether they are told: the setting that applies, their roles on the project
 * (direct, and the highest from the groups above it) and whether they unsubscribed. One query, whatever their number.
 */
export async function findRecipientFacts(db: Db, query: RecipientFactsQuery): Promise<RecipientFactsRow[]> {
  const { groupIds, userIds, subscribable, today } = query
  // A group's own notifications have no project: nothing matches -1.
  const projectId = query.projectId ?? -1
  const notExpired = (eb: ExpressionBuilder<Database, 'members'>) =>
    eb.or([eb('members.expires_at', 'is', null), eb('members.expires_at', '>', today)])
  const settingInChain = (eb: ExpressionBuilder<Database, 'notification_settings'>) => {
    const project = eb.and([eb('source_type', '=', 'Project'), eb('source_id', '=', projectId)])
    return groupIds.length > 0 ? eb.or([project, eb.and([eb('source_type', '=', 'Namespace'), eb('source_id', 'in', groupIds)])]) : project
  }
  const memberInChain = (eb: ExpressionBuilder<Database, 'members'>) =>
    groupIds.length > 0
      ? eb.or([eb('members.project_id', '=', projectId), eb('members.namespace_id', 'in', groupIds)])
      : eb('members.project_id', '=', projectId)
  const named = [...new Set(userIds)]
  const candidates = db
    .selectFrom('users as u')
    .select(RECIPIENT_COLUMNS.map((column) => `u.${column}` as const))
    .select((eb) => [
      effectiveSettingId(eb, query).as('setting_id'),
      eb
        .selectFrom('members')
        .select((m) => m.fn.max('members.access_level').as('level'))
        .whereRef('members.user_id', '=', 'u.id')
        .where('members.project_id', '=', projectId)
        .where(notExpired)
        .as('project_level'),
      (groupIds.length > 0
        ? eb
            .selectFrom('members')
            .select((m) => m.fn.max('members.access_level').as('level'))
            .whereRef('members.user_id', '=', 'u.id')
            .where('members.namespace_id', 'in', groupIds)
            .where(notExpired)
        : sql<number | null>`null`
      ).as('group_level'),
      eb
        .case()
        .when(
          eb.exists(
            eb
              .selectFrom('subscriptions')
              .select('subscriptions.id')
              .whereRef('subscriptions.user_id', '=', 'u.id')
              .where('subscriptions.subscribable_type', '=', subscribable?.type ?? 'Issue')
              .where('subscriptions.subscribable_id', '=', subscribable?.id ?? -1)
              .where('subscriptions.subscribed', '=', 0),
          ),
        )
        .then(1)
        .else(0)
        .end()
        .as('unsubscribed'),
    ])
    .where((eb) => {
      const conditions = []
      if (named.length > 0) conditions.push(eb('u.id', 'in', named))
      if (query.withLevelled) {
        conditions.push(
          eb('u.id', 'in', eb.selectFrom('notification_settings').select('notification_settings.user_id').where(settingInChain)),
        )
        conditions.push(eb('u.id', 'in', eb.selectFrom('members').select('members.user_id').where(memberInChain)))
      }
      return conditions.length > 0 ? eb.or(conditions) : sql<SqlBool>`1 = 0`
    })
  // Materialized, so that each candidate's setting is looked up once (inlined, the join would look it up again).
  const rows = await db
    .with(
      (cte) => cte('f').materialized(),
      () => candidates,
    )
    .selectFrom('f')
    .leftJoin('notification_settings as s', 's.id', 'f.setting_id')
    .selectAll('f')
    .select(['s.level as setting_level', 's.events as setting_events'])
    .where((eb) => {
      // Those the event does not name count only at Watch or Custom.
      const levelled = eb('s.level', 'in', [WATCH_LEVEL, CUSTOM_LEVEL])
      return named.length > 0 ? eb.or([eb('f.id', 'in', named), levelled]) : levelled
    })
    .orderBy('f.id')
    .execute()
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    setting_level: row.setting_level === null ? null : Number(row.setting_level),
    setting_events: row.setting_events,
    project_level: row.project_level === null ? null : Number(row.project_level),
    group_level: row.group_level === null ? null : Number(row.group_level),
    unsubscribed: Number(row.unsubscribed),
  }))
}

/** The direct Maintainers and Owners of a project or group who can still sign in (GL `owners_and_maintainers`). */
export async function findMaintainerIds(db: Db, source: { projectId: number } | { groupId: number }): Promise<number[]> {
  const rows = await db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select('members.user_id')
    .where(
      'projectId' in source ? 'members.project_id' : 'members.namespace_id',
      '=',
      'projectId' in source ? source.projectId : source.groupId,
    )
    .where('members.access_level', '>=', 40)
    .where('users.state', '=', 'active')
    .orderBy('members.user_id')
    .execute()
  return rows.map((row) => Number(row.user_id))
}

/** Records the e-mails' reply keys, in one statement a thousand. */
export async function insertSentNotifications(db: Db, rows: NewSentNotificationRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 1000) {
    await db
      .insertInto('sent_notifications')
      .values(rows.slice(start, start + 1000))
      .execute()
  }
}

export async function findSentNotification(db: Db, replyKey: string): Promise<SentNotificationRow | undefined> {
  const row = await db.selectFrom('sent_notifications').selectAll().where('reply_key', '=', replyKey).executeTakeFirst()
  return row && { ...row, id: Number(row.id), recipient_id: Number(row.recipient_id), noteable_id: Number(row.noteable_id) }
}

/** The user's explicit subscription to the issue or merge request: subscribed or not, or null when they made none. */
export async function findSubscription(db: Db, type: SubscribableType, id: number, userId: number): Promise<boolean | null> {
  const row = await db
    .selectFrom('subscriptions')
    .select('subscribed')
    .where('subscribable_type', '=', type)
    .where('subscribable_id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return row ? row.subscribed === 1 : null
}

/** Sets the user's subscription to the issue or merge request, making it when they have none (GL Subscribable#unsubscribe). */
export async function saveSubscription(
  db: Db,
  row: { userId: number; type: SubscribableType; id: number; projectId: number; subscribed: boolean; at: string },
): Promise<void> {
  const subscribed = row.subscribed ? 1 : 0
  await db
    .insertInto('subscriptions')
    .values({
      user_id: row.userId,
      subscribable_type: row.type,
      subscribable_id: row.id,
      project_id: row.projectId,
      subscribed,
      created_at: row.at,
      updated_at: row.at,
    })
    .onConflict((conflict) =>
      conflict.columns(['subscribable_type', 'subscribable_id', 'user_id']).doUpdateSet({ subscribed, updated_at: row.at }),
    )
    .execute()
}
