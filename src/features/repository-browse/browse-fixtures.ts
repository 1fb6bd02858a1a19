import fs from 'node:fs'
import path from 'node:path'
import { expect } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestToken, createTestUser } from '../../testing/factories.js'
import { GitClient, repoUrl } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import type { TestServer } from '../../testing/server.js'

export interface Person {
  user: User
  token: string
  password: string
}

/** What the tests read of a project the API created. */
export interface CreatedProject {
  id: number
  path: string
  path_with_namespace: string
}

/** People, projects and real git pushes against a test server, for the browse tests. */
export class BrowseFixture {
  readonly git = new GitClient()
  readonly request: ReturnType<typeof client>
  private sequence = 0

  constructor(readonly server: TestServer) {
    this.request = client(`${server.url}/api/v4`)
  }

  async person(name: string): Promise<Person> {
    const password = `${name}-secret-1`
    const user = await createTestUser(this.server.database.db, {
      username: name,
      name: `${name[0].toUpperCase()}${name.slice(1)}`,
      password,
    })
    return { user, token: (await createTestToken(this.server.database.db, user)).value, password }
  }

  async member(who: Person, projectId: number, accessLevel: number) {
    const db = this.server.database.db
    const project: ProjectRow = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow()
    await addTestMember(db, { user: who.user, project, accessLevel })
  }

  /** A project made through the API by `owner` (empty unless `initialize_with_readme`). */
  async project(owner: Person, body: Record<string, unknown> = {}): Promise<CreatedProject> {
    this.sequence += 1
    const res = await this.request('POST', '/projects', {
      token: owner.token,
      body: { name: `Browse ${this.sequence}`, visibility: 'public', ...body },
    })
    expect(res.status, res.text).toBe(201)
    return res.body as CreatedProject
  }

  /** A work tree of the project, cloned as `who` (an empty repository clones too). */
  async clone(who: Person, fullPath: string): Promise<string> {
    const { run, dir } = await this.git.clone(repoUrl(this.server.url, fullPath, who.user.username, who.password))
    expect(run.code, run.stderr).toBe(0)
    return dir
  }

  /** Writes files (a Buffer for binary content), commits them all and answers the commit. */
  async commit(dir: string, files: Record<string, string | Buffer>, message: string, ...options: string[]): Promise<string> {
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
      fs.writeFileSync(path.join(dir, name), content)
    }
    await this.git.ok(dir, 'add', '--all')
    await this.git.ok(dir, 'commit', '--quiet', '-m', message, ...options)
    return (await this.git.ok(dir, 'rev-parse', 'HEAD')).trim()
  }

  ok(dir: string, ...args: string[]): Promise<string> {
    return this.git.ok(dir, ...args)
  }

  remove() {
    this.git.remove()
  }
}

/** The ids of running processes whose command line holds `text`. */
export function processesMentioning(text: string): number[] {
  const found: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}
