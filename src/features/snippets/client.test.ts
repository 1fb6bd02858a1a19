import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let user: InstanceType<typeof Gitlab>
let projectId: number

beforeAll(async () => {
  server = await startTestServer()
  const db = server.database.db
  const beaker = await createTestUser(db, { username: 'beaker' })
  user = new Gitlab({ host: server.url, token: (await createTestToken(db, beaker)).value })
  projectId = (await createTestProject(db, { owner: beaker, path: 'lab' })).id
})
afterAll(() => server.close())

describe('the gitbeaker Snippets API', () => {
  test('creates, shows, reads raw, edits, lists and removes a personal snippet', async () => {
    const created = await user.Snippets.create('Client snippet', {
      description: 'From gitbeaker',
      visibility: 'public',
      files: [
        { filePath: 'one.txt', content: 'first\n' },
        { filePath: 'two.txt', content: 'second\n' },
      ],
    })
    expect(created).toMatchObject({ title: 'Client snippet', description: 'From gitbeaker', visibility: 'public', file_name: 'one.txt' })
    const id = created.id as number

    const shown = await user.Snippets.show(id)
    expect(shown.files).toEqual([
      { path: 'one.txt', raw_url: `${server.url}/-/snippets/${id}/raw/main/one.txt` },
      { path: 'two.txt', raw_url: `${server.url}/-/snippets/${id}/raw/main/two.txt` },
    ])
    expect(await user.Snippets.showContent(id)).toBe('first\n')
    expect(await user.Snippets.showRepositoryFileContent(id, 'main', 'two.txt')).toBe('second\n')

    const edited = await user.Snippets.edit(id, {
      description: 'Edited',
      files: [
        { action: 'move', previousPath: 'two.txt', filePath: 'zwei.txt' },
        { action: 'update', filePath: 'one.txt', content: 'erste\n' },
      ],
    })
    expect(edited).toMatchObject({ description: 'Edited' })
    expect((edited.files as { path: string }[]).map((file) => file.path)).toEqual(['one.txt', 'zwei.txt'])
    expect(await user.Snippets.showRepositoryFileContent(id, 'main', 'zwei.txt')).toBe('second\n')

    expect((await user.Snippets.all()).map((snippet) => snippet.id)).toEqual([id])
    expect((await user.Snippets.all({ public: true })).map((snippet) => snippet.id)).toContain(id)

    await user.Snippets.remove(id)
    await expect(user.Snippets.show(id)).rejects.toMatchObject({ cause: { description: '404 Snippet Not Found' } })
  })

  test('reports GitLab’s errors', async () => {
    await expect(user.Snippets.create('No files')).rejects.toMatchObject({
      cause: { response: { status: 400 }, description: 'files, content are missing, exactly one parameter must be provided' },
    })
  })
})

describe('the gitbeaker ProjectSnippets API', () => {
  test('creates, shows, reads raw, edits, lists and removes a project snippet', async () => {
    const created = await user.ProjectSnippets.create(projectId, 'Project snippet', {
      visibility: 'internal',
      files: [{ filePath: 'notes.md', content: '# Notes\n' }],
    })
    const id = created.id as number
    expect(created).toMatchObject({ project_id: projectId, visibility: 'internal', web_url: `${server.url}/beaker/lab/-/snippets/${id}` })
    expect(await user.ProjectSnippets.show(projectId, id)).toMatchObject({ id, file_name: 'notes.md' })
    expect(await user.ProjectSnippets.showContent(projectId, id)).toBe('# Notes\n')
    expect(await user.ProjectSnippets.showRepositoryFileContent(projectId, id, 'main', 'notes.md')).toBe('# Notes\n')

    const edited = await user.ProjectSnippets.edit(projectId, id, {
      visibility: 'private',
      files: [{ action: 'create', filePath: 'more.md', content: 'more\n' }],
    })
    expect(edited).toMatchObject({ visibility: 'private' })
    expect((edited.files as { path: string }[]).map((file) => file.path)).toEqual(['more.md', 'notes.md'])

    expect((await user.ProjectSnippets.all(projectId)).map((snippet) => snippet.id)).toEqual([id])
    await user.ProjectSnippets.remove(projectId, id)
    expect(await user.ProjectSnippets.all(projectId)).toEqual([])
  })
})
