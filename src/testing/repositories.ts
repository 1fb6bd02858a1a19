import { expect } from 'vitest'
import type { User } from '../core/caller.js'
import type { Db } from '../db/index.js'
import { projectRepositoryDirectory } from '../features/repositories/index.js'
import { addTestMember, createTestToken, createTestUser } from './factories.js'
import { repoUrl, type GitClient } from './git.js'
import type { client } from './http.js'
import type { TestServer } from './server.js'

/** A user who works with repositories: a token for the API, a password for git over HTTP. */
export interface Person {
  user: User
  token: string
  password: string
}

/** A user named `name` (shown capitalised, password `<name>-secret-1`) with a token; the factory's email unless given. */
export async function createPerson(db: Db, name: string, overrides: { email?: string } = {}): Promise<Person> {
  const password = `${name}-secret-1`
  const user = await createTestUser(db, { username: name, name: `${name[0].toUpperCase()}${name.slice(1)}`, password, ...overrides })
  return { user, token: (await createTestToken(db, user)).value, password }
}

/** Gives `who` a role in the project with id `projectId`. */
export async function addProjectMember(db: Db, who: Person, projectId: number, accessLevel: number): Promise<void> {
  const project = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow()
  await addTestMember(db, { user: who.user, project, accessLevel })
}

/** A project made through the API by `owner`: public, with a README commit on main, unless `body` says otherwise. */
export async function createRepositoryProject(
  request: ReturnType<typeof client>,
  owner: Person,
  body: Record<string, unknown>,
): Promise<Record<string, any>> {
  const res = await request('POST', '/projects', {
    token: owner.token,
    body: { initialize_with_readme: true, visibility: 'public', ...body },
  })
  expect(res.status, res.text).toBe(201)
  return res.body
}

/** A work tree of the project at `fullPath`, cloned over HTTP as `who` (an empty repository clones too). */
export async function cloneProject(server: TestServer, git: GitClient, who: Person, fullPath: string): Promise<string> {
  const { run, dir } = await git.clone(repoUrl(server.url, fullPath, who.user.username, who.password))
  expect(run.code, run.stderr).toBe(0)
  return dir
}

/** git run on a project's bare repository, where svc keeps it. */
export async function gitInRepository(server: TestServer, git: GitClient, projectId: number, ...args: string[]): Promise<string> {
  const project = await server.database.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow()
  return git.ok(git.workDir, `--git-dir=${projectRepositoryDirectory(server.config, project)}`, ...args)
}

/** The commit a project's branch points at, read from its bare repository. */
export async function branchHead(server: TestServer, git: GitClient, projectId: number, branch = 'main'): Promise<string> {
  return (await gitInRepository(server, git, projectId, 'rev-parse', `refs/heads/${branch}`)).trim()
}
