import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']

let sequence = 0

/** A public project of `owner` with a README on main, a Developer and a Maintainer. */
async function repository(): Promise<Record<string, any>> {
  sequence += 1
  const project = await createRepositoryProject(request, owner, { name: `Protected ${sequence}` })
  await addProjectMember(db, developer, project.id, 30)
  await addProjectMember(db, maintainer, project.id, 40)
  return project
}

let owner: Person
let developer: Person
let maintainer: Person
let stranger: Person

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  db = server.database.db
  owner = await createPerson(db, 'oscar')
  developer = await createPerson(db, 'dora')
  maintainer = await createPerson(db, 'max')
  stranger = await createPerson(db, 'sam')
})

afterAll(async () => {
  await server.close()
})

const maintainers = (id: number) => ({ id, access_level: 40, access_level_description: 'Maintainers' })

describe('protected branches', () => {
  test("a new project's default branch is protected as GitLab protects it by default", async () => {
    const project = await repository()
    const res = await request('GET', `/projects/${project.id}/protected_branches`, { token: maintainer.token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      {
        id: expect.any(Number),
        name: 'main',
        push_access_levels: [maintainers(expect.any(Number))],
        merge_access_levels: [maintainers(expect.any(Number))],
        allow_force_push: false,
        code_owner_approval_required: false,
      },
    ])
    expect(res.headers['x-total']).toBe('1')
    expect(res.headers['x-page']).toBe('1')
  })

  test('are created with wildcards and levels, read, updated and removed by Maintainers', async () => {
    const project = await repository()
    const created = await request('POST', `/projects/${project.id}/protected_branches`, {
      token: maintainer.token,
      body: { name: 'release/*', push_access_level: 0, merge_access_level: 30, allow_force_push: true, code_owner_approval_required: true },
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'release/*',
      push_access_levels: [{ id: expect.any(Number), access_level: 0, access_level_description: 'No one' }],
      merge_access_levels: [{ id: expect.any(Number), access_level: 30, access_level_description: 'Developers + Maintainers' }],
      allow_force_push: true,
      code_owner_approval_required: true,
    })
    const withArrays = await request('POST', `/projects/${project.id}/protected_branches`, {
      token: maintainer.token,
      body: { name: 'stable', allowed_to_push: [{ access_level: 30 }, { access_level: 40 }], allowed_to_merge: [{ access_level: 60 }] },
    })
    expect(withArrays.status, withArrays.text).toBe(201)
    expect(withArrays.body.push_access_levels.map((level: { access_level_description: string }) => level.access_level_description)).toEqual(
      ['Developers + Maintainers', 'Maintainers'],
    )
    expect(withArrays.body.merge_access_levels[0].access_level_description).toBe('Administrators')

    const shown = await request('GET', `/projects/${project.id}/protected_branches/${encodeURIComponent('release/*')}`, {
      token: maintainer.token,
    })
    expect(shown.status).toBe(200)
    expect(shown.body).toEqual(created.body)
    const searched = await request('GET', `/projects/${project.id}/protected_branches?search=REL`, { token: maintainer.token })
    expect(searched.body.map((branch: { name: string }) => branch.name)).toEqual(['release/*'])

    // The rule applies to the branches the wildcard matches.
    await request('POST', `/projects/${project.id}/repository/branches`, {
      token: owner.token,
      body: { branch: 'release/2.0', ref: 'main' },
    })
    const branch = await request('GET', `/projects/${project.id}/repository/branches/${encodeURIComponent('release/2.0')}`, {
      token: developer.token,
    })
    expect(branch.body).toMatchObject({ protected: true, developers_can_push: false, developers_can_merge: true, can_push: false })

    const pushId = created.body.push_access_levels[0].id
    const updated = await request('PATCH', `/projects/${project.id}/protected_branches/${encodeURIComponent('release/*')}`, {
      token: maintainer.token,
      body: { allow_force_push: false, allowed_to_push: [{ id: pushId, _destroy: true }, { access_level: 30 }] },
    })
    expect(updated.status, updated.text).toBe(200)
    expect(updated.body).toMatchObject({
      allow_force_push: false,
      code_owner_approval_required: true,
      push_access_levels: [{ access_level: 30, access_level_description: 'Developers + Maintainers' }],
    })
    const after = await request('GET', `/projects/${project.id}/repository/branches/${encodeURIComponent('release/2.0')}`, {
      token: developer.token,
    })
    expect(after.body).toMatchObject({ developers_can_push: true, can_push: true })

    const removed = await request('DELETE', `/projects/${project.id}/protected_branches/${encodeURIComponent('release/*')}`, {
      token: maintainer.token,
    })
    expect(removed.status).toBe(204)
    expect(removed.text).toBe('')
    const gone = await request('GET', `/projects/${project.id}/protected_branches/${encodeURIComponent('release/*')}`, {
      token: maintainer.token,
    })
    expect([gone.status, gone.body]).toEqual([404, { message: '404 Not found' }])
  })

  test("refuse what GitLab refuses, with GitLab's bodies", async () => {
    const project = await repository()
    const post = (who: Person | null, body: Record<string, unknown>) =>
      request('POST', `/projects/${project.id}/protected_branches`, { token: who?.token, body })
    const duplicate = await post(maintainer, { name: 'main' })
    expect([duplicate.status, duplicate.body]).toEqual([409, { message: "Protected branch 'main' already exists" }])
    const badLevel = await post(maintainer, { name: 'x', push_access_level: 20 })
    expect([badLevel.status, badLevel.body]).toEqual([400, { error: 'push_access_level does not have a valid value' }])
    const missing = await post(maintainer, {})
    expect([missing.status, missing.body]).toEqual([400, { message: '400 (Bad request) "name" not given' }])
    const byDeveloper = await post(developer, { name: 'x' })
    expect([byDeveloper.status, byDeveloper.body]).toEqual([403, { message: '403 Forbidden' }])
    const list = await request('GET', `/projects/${project.id}/protected_branches`, { token: developer.token })
    expect(list.status).toBe(403)
    const anonymous = await request('GET', `/projects/${project.id}/protected_branches`)
    expect(anonymous.status).toBe(401)
    const byStranger = await request('DELETE', `/projects/${project.id}/protected_branches/main`, { token: stranger.token })
    expect(byStranger.status).toBe(403)
    const unknown = await request('DELETE', `/projects/${project.id}/protected_branches/nope`, { token: maintainer.token })
    expect([unknown.status, unknown.body]).toEqual([404, { message: '404 Not found' }])
    const patchUnknown = await request('PATCH', `/projects/${project.id}/protected_branches/nope`, {
      token: maintainer.token,
      body: { allow_force_push: true },
    })
    expect(patchUnknown.status).toBe(404)
    const twice = await request('PATCH', `/projects/${project.id}/protected_branches/main`, {
      token: maintainer.token,
      body: { allowed_to_push: [{ access_level: 40 }] },
    })
    expect([twice.status, twice.body]).toEqual([422, { message: ['Push access levels access level has already been taken'] }])
    const still = await request('GET', `/projects/${project.id}/protected_branches`, { token: maintainer.token })
    expect(still.body.map((branch: { name: string }) => branch.name)).toEqual(['main'])
  })

  test('work through gitbeaker', async () => {
    const project = await repository()
    const api = new Gitlab({ host: server.url, token: maintainer.token })
    const created = await api.ProtectedBranches.protect(project.id, 'hotfix-*', { pushAccessLevel: 30, mergeAccessLevel: 30 })
    expect(created.name).toBe('hotfix-*')
    const all = await api.ProtectedBranches.all(project.id)
    expect(all.map((branch) => branch.name)).toEqual(['main', 'hotfix-*'])
    const shown = await api.ProtectedBranches.show(project.id, 'hotfix-*')
    expect(shown.push_access_levels?.[0]).toMatchObject({ access_level: 30 })
    await api.ProtectedBranches.unprotect(project.id, 'hotfix-*')
    expect((await api.ProtectedBranches.all(project.id)).map((branch) => branch.name)).toEqual(['main'])
  })
})

describe('protected tags', () => {
  test('are created, read and removed by Maintainers, with GitLab bodies', async () => {
    const project = await repository()
    const created = await request('POST', `/projects/${project.id}/protected_tags`, {
      token: maintainer.token,
      body: { name: 'v*', create_access_level: 30 },
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toEqual({
      name: 'v*',
      create_access_levels: [{ id: expect.any(Number), access_level: 30, access_level_description: 'Developers + Maintainers' }],
    })
    const byDefault = await request('POST', `/projects/${project.id}/protected_tags`, {
      token: maintainer.token,
      body: { name: 'release-*' },
    })
    expect(byDefault.body.create_access_levels).toEqual([maintainers(expect.any(Number))])
    const taken = await request('POST', `/projects/${project.id}/protected_tags`, { token: maintainer.token, body: { name: 'v*' } })
    expect([taken.status, taken.body]).toEqual([422, { message: ['Name has already been taken'] }])
    const badLevel = await request('POST', `/projects/${project.id}/protected_tags`, {
      token: maintainer.token,
      body: { name: 'x', create_access_level: 10 },
    })
    expect([badLevel.status, badLevel.body]).toEqual([400, { error: 'create_access_level does not have a valid value' }])
    const byDeveloper = await request('GET', `/projects/${project.id}/protected_tags`, { token: developer.token })
    expect(byDeveloper.status).toBe(403)

    const list = await request('GET', `/projects/${project.id}/protected_tags`, { token: maintainer.token })
    expect(list.body.map((tag: { name: string }) => tag.name)).toEqual(['v*', 'release-*'])
    const shown = await request('GET', `/projects/${project.id}/protected_tags/${encodeURIComponent('v*')}`, { token: maintainer.token })
    expect(shown.body).toEqual(created.body)
    const removed = await request('DELETE', `/projects/${project.id}/protected_tags/${encodeURIComponent('v*')}`, {
      token: maintainer.token,
    })
    expect(removed.status).toBe(204)
    const gone = await request('GET', `/projects/${project.id}/protected_tags/${encodeURIComponent('v*')}`, { token: maintainer.token })
    expect([gone.status, gone.body]).toEqual([404, { message: '404 Not found' }])

    const api = new Gitlab({ host: server.url, token: maintainer.token })
    await api.ProtectedTags.protect(project.id, 'gb-*', { createAccessLevel: 40 })
    expect((await api.ProtectedTags.all(project.id)).map((tag) => tag.name)).toEqual(['release-*', 'gb-*'])
  })
})
