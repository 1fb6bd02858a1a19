import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { VisibilityName } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

/**
 * The authorization matrix: every caller × project visibility × action, for a project in a user's personal
 * namespace and for one three groups deep, where roles come directly and through each level of groups.
 */

type CallerName =
  | 'anonymous'
  | 'non-member'
  | 'external'
  | 'guest'
  | 'reporter'
  | 'developer'
  | 'maintainer'
  | 'owner'
  | 'admin'
  | 'read_api token'
  | 'blocked'
type Action = 'read' | 'update' | 'delete' | 'manage members'

const CALLERS: CallerName[] = [
  'anonymous',
  'non-member',
  'external',
  'guest',
  'reporter',
  'developer',
  'maintainer',
  'owner',
  'admin',
  'read_api token',
  'blocked',
]
const VISIBILITIES: VisibilityName[] = ['public', 'internal', 'private']
const ROLE: Partial<Record<CallerName, number>> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 }

const NOT_FOUND = { status: 404, body: { message: '404 Project Not Found' } }
const GROUP_NOT_FOUND = { status: 404, body: { message: '404 Group Not Found' } }
const FORBIDDEN = { status: 403, body: { message: '403 Forbidden' } }
const UNAUTHORIZED = { status: 401, body: { message: '401 Unauthorized' } }
const BLOCKED = { status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } }
const INSUFFICIENT_SCOPE = {
  status: 403,
  body: {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: 'api',
  },
}

/** The role an action needs (GitLab ProjectPolicy): maintainers edit and manage members, owners delete. */
const NEEDED: Record<Exclude<Action, 'read'>, number> = { update: 40, delete: 50, 'manage members': 40 }
/** On a group (GitLab GroupPolicy) every change needs an Owner. */
const NEEDED_ON_GROUP: Record<Exclude<Action, 'read'>, number> = { update: 50, delete: 50, 'manage members': 50 }

function canSee(caller: CallerName, visibility: VisibilityName): boolean {
  if (caller === 'admin' || caller === 'read_api token' || ROLE[caller]) return true
  if (visibility === 'public') return true
  return visibility === 'internal' && caller === 'non-member'
}

function expected(
  caller: CallerName,
  visibility: VisibilityName,
  action: Action,
  subject: 'project' | 'group' = 'project',
): { status: number; body?: unknown } {
  if (caller === 'blocked') return BLOCKED
  const hidden = subject === 'project' ? NOT_FOUND : GROUP_NOT_FOUND
  if (action === 'read') return canSee(caller, visibility) ? { status: 200 } : hidden
  if (caller === 'anonymous') return UNAUTHORIZED
  if (caller === 'read_api token') return INSUFFICIENT_SCOPE
  if (!canSee(caller, visibility)) return hidden
  const level = caller === 'admin' ? 100 : (ROLE[caller] ?? 0)
  if (level < (subject === 'project' ? NEEDED : NEEDED_ON_GROUP)[action]) return FORBIDDEN
  return { status: action === 'delete' ? 202 : action === 'update' ? 200 : 201 }
}

let server: TestServer
let request: ReturnType<typeof client>
const users = new Map<CallerName, User>()
const tokens = new Map<CallerName, string>()

async function user(overrides: Parameters<typeof createTestUser>[1] = {}) {
  return createTestUser(server.database.db, overrides)
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  for (const name of CALLERS) {
    if (name === 'anonymous') continue
    const created = await user(
      name === 'external' ? { external: 1 } : name === 'admin' ? { admin: 1 } : name === 'blocked' ? { state: 'blocked' } : {},
    )
    users.set(name, created)
    const scopes = name === 'read_api token' ? ['read_api'] : ['api']
    tokens.set(name, (await createTestToken(server.database.db, created, { scopes })).value)
  }
})

afterAll(() => server?.close())

type Place = 'personal namespace' | 'nested group'

/**
 * A project where each role-holding caller has their role: in a personal namespace the owner owns the
 * namespace (one owner for all such projects) and the others are project members; three groups deep, roles come from the project and from
 * each group above it. The read_api token's user is a maintainer, and the blocked user a developer.
 */
async function projectFor(place: Place, visibility: VisibilityName): Promise<ProjectRow> {
  const db = server.database.db
  const member = (name: CallerName) => users.get(name)!
  if (place === 'personal namespace') {
    const project = await createTestProject(db, { owner: member('owner'), visibility })
    for (const name of ['guest', 'reporter', 'developer', 'maintainer'] as const) {
      await addTestMember(db, { user: member(name), project, accessLevel: ROLE[name]! })
    }
    await addTestMember(db, { user: member('read_api token'), project, accessLevel: 40 })
    await addTestMember(db, { user: member('blocked'), project, accessLevel: 30 })
    return project
  }
  const top: NamespaceRow = await createTestGroup(db, { visibility })
  const middle = await createTestGroup(db, { parent: top, visibility })
  const bottom = await createTestGroup(db, { parent: middle, visibility })
  const project = await createTestProject(db, { namespace: bottom, visibility })
  await addTestMember(db, { user: member('guest'), project, accessLevel: 10 })
  await addTestMember(db, { user: member('reporter'), group: bottom, accessLevel: 20 })
  await addTestMember(db, { user: member('developer'), group: middle, accessLevel: 30 })
  await addTestMember(db, { user: member('maintainer'), group: top, accessLevel: 40 })
  await addTestMember(db, { user: member('owner'), group: top, accessLevel: 50 })
  await addTestMember(db, { user: member('read_api token'), group: middle, accessLevel: 40 })
  await addTestMember(db, { user: member('blocked'), group: top, accessLevel: 30 })
  return project
}

async function act(caller: CallerName, action: Action, subject: { id: number }, kind: 'projects' | 'groups' = 'projects') {
  const token = tokens.get(caller)
  const path = `/api/v4/${kind}/${subject.id}`
  if (action === 'read') return request('GET', path, { token })
  if (action === 'update') return request('PUT', path, { token, body: { description: `changed by ${caller}` } })
  if (action === 'delete') return request('DELETE', path, { token })
  const newcomer = await user()
  return request('POST', `${path}/members`, { token, body: { user_id: newcomer.id, access_level: 30 } })
}

describe.each(['personal namespace', 'nested group'] as Place[])('a project in a %s', (place) => {
  describe.each(VISIBILITIES)('%s', (visibility) => {
    let project: ProjectRow
    beforeAll(async () => {
      project = await projectFor(place, visibility)
    })

    test.each(CALLERS)('%s', async (caller) => {
      const outcomes: Record<string, unknown> = {}
      const wanted: Record<string, unknown> = {}
      for (const action of ['read', 'update', 'manage members'] as Action[]) {
        const response = await act(caller, action, project)
        const want = expected(caller, visibility, action)
        outcomes[action] = want.body === undefined ? response.status : { status: response.status, body: response.body }
        wanted[action] = want.body === undefined ? want.status : want
        if (response.status === 200 && action === 'read') expect(response.body.id).toBe(project.id)
      }
      // Each caller deletes a project of their own, placed and shared exactly like this one.
      const victim = await projectFor(place, visibility)
      const deleted = await act(caller, 'delete', victim)
      const wantDeleted = expected(caller, visibility, 'delete')
      outcomes.delete = { status: deleted.status, body: deleted.body }
      wanted.delete = wantDeleted.body === undefined ? { status: 202, body: { message: '202 Accepted' } } : wantDeleted
      expect(outcomes).toEqual(wanted)
      // A deletion marks the row at once; the deletion job removes it later.
      const row = await server.database.db
        .selectFrom('projects')
        .select('pending_delete')
        .where('id', '=', victim.id)
        .executeTakeFirstOrThrow()
      expect(row.pending_delete === 1).toBe(wantDeleted.status === 202)
    })
  })
})

/** Roles three groups deep: on the group itself and through each group above it. */
async function nestedGroupFor(visibility: VisibilityName): Promise<NamespaceRow> {
  const db = server.database.db
  const member = (name: CallerName) => users.get(name)!
  const top = await createTestGroup(db, { visibility })
  const middle = await createTestGroup(db, { parent: top, visibility })
  const bottom = await createTestGroup(db, { parent: middle, visibility })
  await addTestMember(db, { user: member('guest'), group: bottom, accessLevel: 10 })
  await addTestMember(db, { user: member('reporter'), group: bottom, accessLevel: 20 })
  await addTestMember(db, { user: member('developer'), group: middle, accessLevel: 30 })
  await addTestMember(db, { user: member('maintainer'), group: top, accessLevel: 40 })
  await addTestMember(db, { user: member('owner'), group: middle, accessLevel: 50 })
  await addTestMember(db, { user: member('read_api token'), group: top, accessLevel: 50 })
  await addTestMember(db, { user: member('blocked'), group: top, accessLevel: 50 })
  return bottom
}

describe.each(VISIBILITIES)('a %s group three levels deep', (visibility) => {
  let group: NamespaceRow
  beforeAll(async () => {
    group = await nestedGroupFor(visibility)
  })

  test.each(CALLERS)('%s', async (caller) => {
    const outcomes: Record<string, unknown> = {}
    const wanted: Record<string, unknown> = {}
    for (const action of ['read', 'update', 'manage members'] as Action[]) {
      const response = await act(caller, action, group, 'groups')
      const want = expected(caller, visibility, action, 'group')
      outcomes[action] = want.body === undefined ? response.status : { status: response.status, body: response.body }
      wanted[action] = want.body === undefined ? want.status : want
      if (response.status === 200 && action === 'read') expect(response.body.id).toBe(group.id)
    }
    const victim = await nestedGroupFor(visibility)
    const deleted = await act(caller, 'delete', victim, 'groups')
    const wantDeleted = expected(caller, visibility, 'delete', 'group')
    outcomes.delete = { status: deleted.status, body: deleted.body }
    wanted.delete = wantDeleted.body === undefined ? { status: 202, body: { message: '202 Accepted' } } : wantDeleted
    expect(outcomes).toEqual(wanted)
    // A deletion marks the row at once; the deletion job removes it later.
    const row = await server.database.db
      .selectFrom('namespaces')
      .select('pending_delete')
      .where('id', '=', victim.id)
      .executeTakeFirstOrThrow()
    expect(row.pending_delete === 1).toBe(wantDeleted.status === 202)
  })
})
