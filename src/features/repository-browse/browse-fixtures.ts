import fs from 'node:fs'
import path from 'node:path'
import { GitClient } from '../../testing/git.js'
import { client } from '../../testing/http.js'
import type { TestServer } from '../../testing/server.js'
import { addProjectMember, cloneProject, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'

export type { Person } from '../../testing/repositories.js'

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

  person(name: string): Promise<Person> {
    return createPerson(this.server.database.db, name)
  }

  member(who: Person, projectId: number, accessLevel: number) {
    return addProjectMember(this.server.database.db, who, projectId, accessLevel)
  }

  /** A project made through the API by `owner` (empty unless `initialize_with_readme`). */
  async project(owner: Person, body: Record<string, unknown> = {}): Promise<CreatedProject> {
    this.sequence += 1
    const made = { name: `Browse ${this.sequence}`, initialize_with_readme: false, ...body }
    return (await createRepositoryProject(this.request, owner, made)) as CreatedProject
  }

  /** A work tree of the project, cloned as `who` (an empty repository clones too). */
  clone(who: Person, fullPath: string): Promise<string> {
    return cloneProject(this.server, this.git, who, fullPath)
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
